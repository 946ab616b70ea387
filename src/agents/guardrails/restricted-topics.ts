/**
 * Restricted topics (SPEC "What the service does" 6): an agent carries free-text topics ("legal advice",
 * "medical diagnosis", "competitor pricing", "refunds over $500"); a customer message on one of them is
 * handed off instead of answered. Matching is lexical, deterministic and linear in the text:
 *
 * - Text and topic are NFKC-normalised, lower-cased, stripped of Latin accents and split into words
 *   (Unicode letters and digits). Words are lightly stemmed (plural, -ed, -ing, advice/advise,
 *   diagnosis/diagnose), identically on both sides.
 * - A topic matches when every one of its content words is in the text, either itself or a synonym from
 *   the small table below (legal ↔ lawyer/attorney/lawsuit/sue…, medical ↔ doctor/diagnosis/symptom…,
 *   price ↔ cost/pricing…). One text word may satisfy several topic words ("can you diagnose this rash?"
 *   is a medical diagnosis).
 * - Stop words are dropped, and generic head words (advice, help, questions, information…) are optional
 *   when the topic has other content words: "legal advice" is matched by "should I sue my landlord?".
 *   The price of that recall: "what is your legal name?" matches too.
 * - A comparison with an amount ("over $500", "under 20", "at least €1,000") is matched against the
 *   numbers in the text; when the topic's amount has a currency sign, only amounts written with a
 *   currency (sign or word) count, so "refund for order 123456" is not "refunds over $500". A topic with a
 *   comparison and no amount in the text does not match.
 * - Words in scripts written without spaces (Han, Hiragana, Katakana, Thai) are matched as substrings.
 *
 * The first configured topic that matches wins; `matched` lists the text's words that matched it.
 */

export interface MatchRestrictedTopicInput {
  text: string;
  topics: readonly string[];
}

export interface RestrictedTopicMatch {
  topic: string;
  /** The text's words that matched (lower-cased, accents stripped), in the topic's word order, then the amount. */
  matched: string;
}

const STOP_WORDS = new Set(
  ('a an the of for about on in into to with and or any anything all regarding related relating concerning ' +
    'topic topics subject subjects our your their my me we you i it its is are be being do does how what when why ' +
    'who which that this these those there than as at by from some such').split(' '),
);

/** Words that name the kind of request rather than its subject; optional beside a subject word. */
const WEAK_WORDS = new Set(
  'advice advise help question questions information info guidance recommendation recommendations opinion opinions tip tips request requests discussion discussions'
    .split(' '),
);

/**
 * Synonyms, one way: a topic word naming a field (the first word of a group) is satisfied by any word of
 * its group, while a more specific topic word needs itself ("medical diagnosis" is not matched by "my
 * doctor appointment"). Kept small on purpose; agents can always list more specific topics.
 */
const SYNONYM_GROUPS: string[][] = [
  ['legal', 'legally', 'law', 'laws', 'lawyer', 'attorney', 'solicitor', 'lawsuit', 'litigation', 'litigate', 'sue', 'sued', 'sues', 'suing'],
  ['medical', 'medicine', 'medication', 'doctor', 'physician', 'diagnosis', 'diagnose', 'symptom', 'disease', 'illness', 'prescription', 'prescribe'],
  ['advice', 'advise', 'advised', 'advising', 'recommend', 'recommendation', 'suggest', 'suggestion'],
  ['competitor', 'competition', 'competing', 'rival'],
  ['price', 'pricing', 'cost', 'fee', 'rate'],
  ['refund', 'reimburse', 'reimbursement', 'chargeback'],
  ['tax', 'taxes', 'taxation', 'vat'],
  ['investment', 'invest', 'investing', 'stock', 'shares', 'crypto', 'cryptocurrency'],
  ['politics', 'political', 'election', 'elections', 'vote', 'voting'],
  ['religion', 'religious'],
];

const NO_SPACE_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;
const WORD = /[\p{L}\p{N}]+/gu;

function normalize(text: string): string {
  return text.normalize('NFKC').toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').normalize('NFC');
}

/** Light English stemming: inflection first, then a few derivational endings. Non-English words pass. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('ied') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2));
  else if (w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('osis')) w = w.slice(0, -2);
  else if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  return /([b-df-hj-kmnp-rtv-y])\1$/.test(w) ? w.slice(0, -1) : w;
}

const synonymsByStem = new Map<string, Set<string>>(
  SYNONYM_GROUPS.map((group) => [stem(normalize(group[0]!)), new Set(group.map((w) => stem(normalize(w))))]),
);

type Comparison = { op: '>' | '>=' | '<' | '<='; amount: number; currency: boolean };

interface CompiledTopic {
  topic: string;
  /** Each required word: the stems that satisfy it (or a substring for scripts without spaces). */
  words: Array<{ alternatives: Set<string>; substring: string | null }>;
  comparison: Comparison | null;
}

const COMPARISON =
  /(?<!\p{L})(more than|greater than|in excess of|over|above|exceeding|exceeds|at least|less than|under|below|up to|at most|>=|<=|>|<|≥|≤)\s*([$€£¥])?\s*(\d[\d,]*(?:\.\d+)?)\s*(k\b)?\s*(dollars?|euros?|pounds?|usd|eur|gbp)?/u;
const OPS: Record<string, Comparison['op']> = {
  'more than': '>', 'greater than': '>', 'in excess of': '>', over: '>', above: '>', exceeding: '>', exceeds: '>', '>': '>',
  'at least': '>=', '>=': '>=', '≥': '>=', 'less than': '<', under: '<', below: '<', '<': '<', 'up to': '<=', 'at most': '<=', '<=': '<=', '≤': '<=',
};

const parseAmount = (digits: string, k: string | undefined) => Number(digits.replace(/,/g, '')) * (k ? 1000 : 1);

function compileTopic(topic: string): CompiledTopic {
  let rest = normalize(topic);
  let comparison: Comparison | null = null;
  const c = COMPARISON.exec(rest);
  if (c) {
    comparison = { op: OPS[c[1]!]!, amount: parseAmount(c[3]!, c[4]), currency: Boolean(c[2] || c[5]) };
    rest = rest.slice(0, c.index) + ' ' + rest.slice(c.index + c[0].length);
  }
  const tokens = (rest.match(WORD) ?? []).filter((w) => !STOP_WORDS.has(w));
  const strong = tokens.filter((w) => !WEAK_WORDS.has(w));
  const required = strong.length > 0 || comparison ? strong : tokens;
  const words = required.map((w) => {
    if (NO_SPACE_SCRIPT.test(w)) return { alternatives: new Set<string>(), substring: w };
    const s = stem(w);
    return { alternatives: synonymsByStem.get(s) ?? new Set([s]), substring: null };
  });
  return { topic, words, comparison };
}

const compiled = new Map<string, CompiledTopic>();
function compiledTopic(topic: string): CompiledTopic {
  let c = compiled.get(topic);
  if (!c) {
    if (compiled.size >= 2000) compiled.clear();
    c = compileTopic(topic);
    compiled.set(topic, c);
  }
  return c;
}

const TEXT_AMOUNT =
  /(?:([$€£¥])\s*)?(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d,]*\d)\s*(k\b)?\s*(dollars?|euros?|pounds?|usd|eur|gbp|bucks|[$€£¥])?/gu;

function amountsIn(text: string): Array<{ value: number; currency: boolean; raw: string }> {
  const out: Array<{ value: number; currency: boolean; raw: string }> = [];
  TEXT_AMOUNT.lastIndex = 0;
  for (let m = TEXT_AMOUNT.exec(text); m; m = TEXT_AMOUNT.exec(text)) {
    const value = parseAmount(m[0].replace(/[^\d.,]/g, '').replace(/,/g, ''), m[3]);
    if (Number.isFinite(value)) out.push({ value, currency: Boolean(m[1] || m[4]), raw: m[0].trim() });
  }
  return out;
}

function compare(value: number, c: Comparison): boolean {
  switch (c.op) {
    case '>': return value > c.amount;
    case '>=': return value >= c.amount;
    case '<': return value < c.amount;
    case '<=': return value <= c.amount;
  }
}

function firstSurface(stems: Map<string, string>, alternatives: Set<string>): string | undefined {
  for (const alt of alternatives) {
    const surface = stems.get(alt);
    if (surface !== undefined) return surface;
  }
  return undefined;
}

/** The first of `topics` the text is about, or null. */
export function matchRestrictedTopic(input: MatchRestrictedTopicInput): RestrictedTopicMatch | null {
  if (input.topics.length === 0 || input.text.trim() === '') return null;
  const text = normalize(input.text);
  /** stem → first surface word with that stem */
  const stems = new Map<string, string>();
  for (const w of text.match(WORD) ?? []) {
    const s = stem(w);
    if (!stems.has(s)) stems.set(s, w);
  }
  let amounts: ReturnType<typeof amountsIn> | null = null;
  for (const topic of input.topics) {
    const t = compiledTopic(topic);
    if (t.words.length === 0 && !t.comparison) continue;
    const matched: string[] = [];
    for (const w of t.words) {
      const surface = w.substring !== null ? (text.includes(w.substring) ? w.substring : undefined) : firstSurface(stems, w.alternatives);
      if (surface === undefined) break;
      matched.push(surface);
    }
    if (matched.length < t.words.length) continue;
    if (t.comparison) {
      amounts ??= amountsIn(text);
      const c = t.comparison;
      const hit = amounts.find((a) => (!c.currency || a.currency) && compare(a.value, c));
      if (!hit) continue;
      matched.push(hit.raw);
    }
    return { topic, matched: [...new Set(matched)].join(' ') };
  }
  return null;
}
