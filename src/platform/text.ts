/**
 * Text helpers shared by several areas (the local planner, SMS reply shaping): folding, tokens, a light multilingual stemmer, stop words (en, de,
 * fr, es), sentence splitting and plain-text shaping. No JS tokeniser exists elsewhere (the knowledge index
 * tokenises in Postgres), so these are our own. The stemmer is deliberately crude and symmetric:
 * it only has to map the question's words and the passage's words onto the same key, in any of the four
 * languages, without an English-only algorithm mangling German, French or Spanish words.
 */

export type Lang = 'en' | 'de' | 'fr' | 'es';

const MARKS = /\p{M}+/gu;

/** Lowercase, diacritics removed (é→e, ü→u), ß→ss. Length may change; see `foldSameLength`. */
export function normalise(s: string): string {
  return s.toLowerCase().replace(/ß/g, 'ss').normalize('NFD').replace(MARKS, '');
}

/** Like `normalise` but one output character per input character, so match indexes stay valid. */
export function foldSameLength(s: string): string {
  let out = '';
  for (const ch of s) {
    const lower = ch.toLowerCase();
    const folded = lower.normalize('NFD').replace(MARKS, '');
    out += folded.length === ch.length ? folded : lower.length === ch.length ? lower : ch;
  }
  return out;
}

const STOP_LISTS: Record<Lang, string> = {
  en: `a an the and or but if of to in on at by for with from about as into over after before than then so is
    are was were be been being am do does did doing have has had having i me my mine we our us you your yours
    he she it its they them their this that these those there here what which who whom whose when where why
    how can could would should will shall may might must not no yes please hi hello hey thanks thank just
    also very much many any some all more most other such only same too up out off again once get got tell
    know want need like im ive id dont cant wont isnt whats hows let s t ll re ve m d`,
  de: `der die das den dem des ein eine einen einem einer eines und oder aber wenn ich mich mir mein meine
    meinen meinem meiner wir uns unser unsere du dich dir dein deine sie ihr ihre ihnen er es ist sind war
    waren bin bist sein hat habe haben hatte kann konnen konnte muss mussen soll sollte will wollen mochte
    wird werden wurde nicht kein keine ja nein bitte danke hallo wie was wann wo warum welche welcher welches
    wer im am an auf aus bei mit nach von vor zu zum zur fur uber unter um durch ohne gegen bis als auch
    noch schon nur sehr so da dann denn doch mal man sich gibt`,
  fr: `le la les l un une des du de d et ou mais si je j me m moi mon ma mes nous notre nos vous votre vos tu
    te toi ton ta tes il elle ils elles on ce cet cette ces c est sont etait etre ai as a avons avez ont suis
    es peut pouvez puis peux veux voudrais dois doit ne pas n plus y en au aux dans sur sous par pour avec
    sans chez que qu qui quoi quel quelle quels quelles quand comment pourquoi combien bonjour merci oui non
    svp`,
  es: `el la los las lo un una unos unas y o pero si yo me mi mis mio nosotros nuestro nuestra usted ustedes
    su sus tu te ti ella ellos ellas es son era ser estar esta estan estoy he ha han hay tengo tiene tienen
    puedo puede pueden quiero quisiera debo no mas de del al a en por para con sin sobre entre que quien cual
    cuales cuando como donde porque cuanto cuanta hola gracias favor se le les`,
};

const STOP_BY_LANG = Object.fromEntries(
  Object.entries(STOP_LISTS).map(([lang, words]) => [lang, new Set(words.split(/\s+/).filter(Boolean))]),
) as Record<Lang, Set<string>>;

export const STOP_WORDS: ReadonlySet<string> = new Set(Object.values(STOP_BY_LANG).flatMap((s) => [...s]));

const WORD = /[\p{L}\p{N}]+/gu;

/** Normalised word tokens. */
export function tokenize(text: string): string[] {
  return normalise(text).match(WORD) ?? [];
}

/** Word tokens of `folded` (see foldSameLength) with their offsets. */
export function tokenSpans(folded: string): Array<{ word: string; start: number; end: number }> {
  const out: Array<{ word: string; start: number; end: number }> = [];
  for (const m of folded.matchAll(WORD)) out.push({ word: m[0], start: m.index!, end: m.index! + m[0].length });
  return out;
}

/** Suffix rules, first match wins: [suffix, replacement, minimum stem length]. */
const RULES: Array<[string, string, number]> = [
  ['iones', 'ion', 3], ['ungen', 'ung', 3], ['heiten', 'heit', 3], ['keiten', 'keit', 3],
  ['ements', 'ement', 3], ['ies', 'i', 2], ['ied', 'i', 2], ['ing', '', 3], ['ed', '', 3], ['ly', '', 4],
  ['en', '', 3], ['es', '', 3], ['e', '', 3], ['s', '', 3],
];

const stemCache = new Map<string, string>();

/** A light stem of a normalised word (plural and common inflection endings of en/de/fr/es). */
export function stem(word: string): string {
  if (word.length < 4 || /\d/.test(word)) return word;
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  let w = word;
  for (const [suffix, replacement, min] of RULES) {
    if (w.endsWith(suffix) && w.length - suffix.length >= min && !(suffix === 's' && w.endsWith('ss'))) {
      w = w.slice(0, -suffix.length) + replacement;
      break;
    }
  }
  if (w.endsWith('y') && w.length > 3) w = `${w.slice(0, -1)}i`;
  if (/([bcdfgkmnprt])\1$/.test(w)) w = w.slice(0, -1);
  if (stemCache.size < 20_000) stemCache.set(word, w);
  return w;
}

/** Stemmed content words (stop words dropped), in order, duplicates kept. */
export function contentTerms(text: string): string[] {
  const out: string[] = [];
  for (const t of tokenize(text)) {
    if (STOP_WORDS.has(t) || (t.length < 2 && !/\d/.test(t))) continue;
    out.push(stem(t));
  }
  return out;
}

/**
 * Customer-service words of de/fr/es mapped to the English word, so a German message can still match an
 * English tool description ("Bestellung" → order). Keys and values are stemmed at load.
 */
const CROSS_LANGUAGE: Array<[string, string]> = [
  ['order', 'bestellung auftrag commande pedido orden'], ['appointment', 'termin rendez vous cita'],
  ['book', 'buchen reservieren reserver reservar'], ['return', 'rucksendung retoure retour devolucion devolver'],
  ['cancel', 'stornieren kundigen annuler cancelar anular'], ['refund', 'erstattung ruckerstattung remboursement reembolso'],
  ['invoice', 'rechnung facture factura'], ['delivery', 'lieferung livraison entrega envio'],
  ['shipment', 'sendung paket colis paquete'], ['track', 'verfolgen sendungsverfolgung suivre suivi rastrear seguimiento'],
  ['account', 'konto kundenkonto compte cuenta'], ['password', 'passwort kennwort contrasena'],
  ['subscription', 'abonnement abo suscripcion'], ['payment', 'zahlung bezahlung paiement pago'],
  ['address', 'adresse direccion'], ['balance', 'guthaben kontostand solde saldo'], ['points', 'punkte puntos'],
  ['reservation', 'reservierung buchung reserva'], ['ticket', 'billet boleto entrada'], ['price', 'preis prix precio'],
  ['status', 'zustand statut estado'], ['email', 'mail courriel correo'], ['phone', 'telefon telephone telefono'],
];
const CANONICAL = new Map<string, string>();
for (const [en, words] of CROSS_LANGUAGE) {
  const target = stem(en);
  for (const w of words.split(' ')) CANONICAL.set(stem(w), target);
}

/** The English stem for a known de/fr/es customer-service stem, else the stem itself. */
export function canonicalTerm(t: string): string {
  return CANONICAL.get(t) ?? t;
}

/** Splits identifiers such as `lookup_order`, `orderId`, `order-number` into words. */
export function identifierWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/**
 * How well stemmed term `t` matches stemmed term `s`: 1 equal; 0.8 when one is a prefix of the other (both
 * long enough: stemming left different endings); 0.7 when a long `s` ends with `t` (German compounds:
 * erstattung in rückerstattung).
 */
export function pairMatch(t: string, s: string): number {
  if (t === s) return 1;
  if (t.length < 5 || s.length < 5 || /\d/.test(t)) return 0;
  return affixMatch(t, s);
}

function affixMatch(t: string, s: string): number {
  if (s.startsWith(t) || t.startsWith(s)) return 0.8;
  return s.length >= t.length + 3 && s.endsWith(t) ? 0.7 : 0;
}

/** The best pairMatch of `t` against a set of terms. */
export function termMatch(t: string, terms: ReadonlySet<string>): number {
  if (terms.has(t)) return 1;
  if (t.length < 5 || /\d/.test(t)) return 0;
  let best = 0;
  for (const s of terms) {
    if (s.length < 5) continue;
    const m = affixMatch(t, s);
    if (m === 0.8) return m;
    if (m > best) best = m;
  }
  return best;
}

/** Guess the customer's language from stop words, else from the locale, else English. */
export function detectLanguage(text: string, locale: string | null): Lang {
  const counts: Record<Lang, number> = { en: 0, de: 0, fr: 0, es: 0 };
  for (const t of tokenize(text)) for (const lang of Object.keys(counts) as Lang[]) if (STOP_BY_LANG[lang].has(t)) counts[lang]++;
  const ranked = (Object.entries(counts) as Array<[Lang, number]>).sort((a, b) => b[1] - a[1]);
  const fromLocale = locale?.slice(0, 2).toLowerCase();
  if (ranked[0]![1] >= 2 && ranked[0]![1] > ranked[1]![1]) return ranked[0]![0];
  if (fromLocale === 'en' || fromLocale === 'de' || fromLocale === 'fr' || fromLocale === 'es') return fromLocale;
  return ranked[0]![1] > 0 && ranked[0]![1] > ranked[1]![1] ? ranked[0]![0] : 'en';
}

/** The languages whose stop words are most frequent in `text` (empty when it holds none). */
function likelyLanguages(text: string): Set<Lang> {
  const counts: Record<Lang, number> = { en: 0, de: 0, fr: 0, es: 0 };
  for (const t of tokenize(text)) for (const lang of Object.keys(counts) as Lang[]) if (STOP_BY_LANG[lang].has(t)) counts[lang]++;
  const top = Math.max(...Object.values(counts));
  return new Set(top > 0 ? (Object.keys(counts) as Lang[]).filter((l) => counts[l] === top) : []);
}

/** Characters of a passage its language is read from (stop words are frequent: the start says enough). */
const LANGUAGE_SAMPLE = 600;

/**
 * A question and a passage written in different languages, as far as their stop words tell: the languages
 * most frequent on each side have none in common. Either side without stop words counts as the same
 * language (nothing says otherwise).
 */
export function inOtherLanguage(question: string, passage: string): boolean {
  const q = likelyLanguages(question);
  if (q.size === 0) return false;
  const p = likelyLanguages(passage.slice(0, LANGUAGE_SAMPLE));
  if (p.size === 0) return false;
  return ![...q].some((l) => p.has(l));
}

/** Removes markdown syntax (links keep their text), leaving plain text. */
export function stripMarkdown(s: string): string {
  return s
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/^\s*>\s?/gm, '')
    .replace(/^\s*(?:[-*+•▪]|\d{1,2}[.)])\s+/gm, '')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[\s(])[*_]([^*_\n]+)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
    .replace(/`([^`]+)`/g, '$1');
}

const ABBREVIATIONS = new Set(['e.g.', 'i.e.', 'etc.', 'z.b.', 'bzw.', 'usw.', 'ca.', 'dr.', 'mr.', 'mrs.', 'ms.', 'st.', 'no.', 'nr.', 'vs.', 'p.ex.', 'approx.', 'inkl.', 'ggf.', 'evtl.', 'sr.', 'sra.', 'mme.', 'art.']);

/** Sentences of a text: lines and list items first, then end punctuation followed by a capital or digit. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const block of stripMarkdown(text).split(/\n+/)) {
    const line = block.replace(/\s+/g, ' ').trim();
    if (!line) continue;
    let start = 0;
    for (const m of line.matchAll(/[.!?…]+["'”’»)]*\s+/g)) {
      const end = m.index! + m[0].length;
      const lastWord = line.slice(Math.max(start, line.lastIndexOf(' ', m.index!) + 1), m.index! + 1).toLowerCase();
      const next = line[end] ?? '';
      if (ABBREVIATIONS.has(lastWord) || /^\p{L}\.$/u.test(lastWord) || !/[\p{Lu}\p{N}"'“«¿¡(]/u.test(next)) continue;
      out.push(line.slice(start, end).trim());
      start = end;
    }
    if (start < line.length) out.push(line.slice(start).trim());
  }
  return out;
}

/** At most `max` characters, cut on a word boundary with an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, Math.max(1, max - 1));
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/** Adds a full stop when a sentence has no end punctuation. */
export function endSentence(s: string): string {
  const t = s.trim();
  return /[.!?…:]["'”’»)]*$/.test(t) ? t : `${t}.`;
}

/** A rough token count (about four characters a token), never zero for non-empty text. */
export function approxTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}
