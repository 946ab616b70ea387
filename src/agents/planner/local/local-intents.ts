import { contentTerms, normalise, tokenize } from '../../../platform/text';

/** Conversational intents the local planner recognises by wording (en, de, fr, es). */

const PERSON =
  '(?:human(?: being)?s?|(?:real |live |actual )?(?:person|agent|representative|rep|operator|human)|someone|somebody|staff|employee|manager|supervisor|support team|customer service' +
  '|mensch(?:en)?|mitarbeiter(?:in)?|menschlichen|berater(?:in)?|kundendienst|kundenservice|jemandem' +
  '|humain|personne|conseill(?:er|ere)|operateur|quelqu.un|service client' +
  '|humano|persona|agente|representante|asesor|operador|alguien)';
const VERB =
  '(?:talk|speak|chat|connect|transfer|escalate|put me through|get me|reach' +
  '|parler|discuter|joindre|transferer|passer|hablar|comunicarme|contactar|transferir|pasar|pasame|pasarme)';
const HUMAN_REQUEST = [
  new RegExp(`\\b${VERB}\\b[^.?!]{0,30}?\\b${PERSON}\\b`),
  new RegExp(`\\b${PERSON}\\b[^.?!]{0,30}?\\b(?:sprechen|reden|verbinden|verbunden|telefonieren)\\b`),
  new RegExp(`\\b(?:verbinden|sprechen|reden)\\b[^.?!]{0,30}?\\b${PERSON}\\b`),
  /^\W*(?:(?:a |an )?(?:real |live )?(?:human|agent|representative|operator|person)|mensch|mitarbeiter|humain|conseiller|humano|agente)\W*(?:please|pls|now|bitte|svp|por favor)?\W*$/,
  /\b(?:real|actual|live) (?:human|person)\b/,
];

/** "Talk to a human", "Ich möchte mit einem Mitarbeiter sprechen", "parler à un conseiller", "agent please". */
export function asksForHuman(message: string): boolean {
  const text = normalise(message).replace(/\s+/g, ' ');
  return HUMAN_REQUEST.some((re) => re.test(text));
}

export type SmallTalk = 'greeting' | 'thanks' | 'bye' | 'ack';

const SMALL_TALK: Array<[SmallTalk, string]> = [
  ['bye', 'bye goodbye tschuss wiedersehen revoir adios luego hasta ciao'],
  ['thanks', 'thanks thank thx ty cheers danke dank vielen merci beaucoup gracias muchas appreciated'],
  ['greeting', 'hi hello hey hallo servus moin bonjour bonsoir salut hola morning afternoon evening guten morgen tag abend buenos buenas dias tardes noches'],
  ['ack', 'ok okay great perfect super cool nice alright fine awesome good perfekt prima genial parfait bien vale bueno entendido understood got'],
];
const SMALL_TALK_WORDS = new Map<string, SmallTalk>();
for (const [kind, words] of [...SMALL_TALK].reverse()) for (const w of words.split(' ')) SMALL_TALK_WORDS.set(w, kind);

/** The message is only greeting, thanks, goodbye or acknowledgement (no content words left). */
export function smallTalk(message: string): SmallTalk | null {
  const tokens = tokenize(message);
  if (tokens.length === 0) return null;
  const kinds = new Set(tokens.map((t) => SMALL_TALK_WORDS.get(t)).filter((k): k is SmallTalk => !!k));
  const rest = contentTerms(tokens.filter((t) => !SMALL_TALK_WORDS.has(t)).join(' '));
  if (rest.length > 0) return null;
  for (const [kind] of SMALL_TALK) if (kinds.has(kind)) return kind;
  return 'greeting';
}

/** Content words left once greetings and thanks are set aside: does the message ask about something? */
export function hasSubstance(message: string): boolean {
  return contentTerms(tokenize(message).filter((t) => !SMALL_TALK_WORDS.has(t)).join(' ')).length > 0;
}

const HOW_TO =
  /^(?:\W*(?:hi|hello|hey|hallo|bonjour|hola)\W+)?(?:how (?:do|can|does|should|would|long)|how to|what (?:is|are) (?:your|the)|what's (?:your|the)|can i|do you|is there|wie (?:kann|konnen|funktioniert|lange)|gibt es|comment (?:puis|peut|faire|fonctionne)|est-ce que je peux|como (?:puedo|se|funciona)|puedo)\b/;

/**
 * Asking how to reach a person rather than asking for one: "how can I talk to someone at Acme?", "what
 * number do I call to speak to a human?", "wie kann ich einen Mitarbeiter erreichen?", "comment joindre un
 * conseiller ?", "¿cómo puedo hablar con una persona?". "Can I talk to a human?" and "I want to speak to
 * someone" are requests, not matched.
 */
const HOW_TO_REACH =
  /^\W*(?:(?:hi|hello|hey|hallo|bonjour|hola)\W+)?(?:how (?:do|can|could|would|should) (?:i|we)|how to|what (?:number|phone|email|address)|which (?:number|phone|email)|wie (?:kann|konnen|erreiche)|unter welcher|comment (?:puis|peut|peux|faire pour|joindre|contacter)|como (?:puedo|se puede|contacto|contactar)|a que numero)\b/;
export function asksHowToReach(message: string): boolean {
  return HOW_TO_REACH.test(normalise(message).trim());
}

/** How-to and policy questions ("how do I cancel…?"): knowledge answers them even when a tool also matches. */
export function isHowTo(message: string): boolean {
  return HOW_TO.test(normalise(message).trim());
}

/**
 * Questions about a subject rather than requests to act on it: how-to and policy questions, prices ("how
 * much does it cost to…"), consequences ("what happens if…") and definitions ("what is a…"). "How much
 * data have I got left" and "what's my balance" are requests, not matched.
 */
const ABOUT_SUBJECT =
  /^(?:\W*(?:hi|hello|hey|hallo|bonjour|hola)\W+)?(?:how much (?:does|do|is|are|would|will) (?:it|an?|the|your|this)\b.*\b(?:cost|charge|fee)s?\b|how much is (?:an?|the)\b|what happens (?:if|to|when|after)|what (?:is|are) (?:an?|two|\d)\b|what does .* mean|was (?:kostet|ist ein|passiert)|wie viel kostet|combien (?:coute|ca coute)|qu'est-ce qu(?:e|'un)|que se passe|cuanto (?:cuesta|vale)|que es (?:un|una|el|la)|que pasa si)/;

/** A question about the subject of a tool that needs no tool (isHowTo, or ABOUT_SUBJECT). */
export function asksAboutSubject(message: string): boolean {
  return isHowTo(message) || ABOUT_SUBJECT.test(normalise(message).trim());
}

/**
 * The message asks about a subject in one of its clauses ("I bought a jacket that doesn't fit, can I send it
 * back?", "my bill went up, what is a roaming charge?"): asksAboutSubject on each clause, so a question put
 * after the customer's story is still read as a question. Used to keep a tool's clarifying question for
 * requests ("where is my order?", "cancel my order"): a question about the subject is the knowledge's.
 */
export function asksAboutSubjectAnywhere(message: string): boolean {
  return message.split(/[.,;:!?\n]+|\s[-–]\s/).some((clause) => clause.trim() !== '' && asksAboutSubject(clause));
}

/**
 * The customer's own things: a possessive of the first person ("my order", "our account", "mein Konto",
 * "ma facture", "mi tarjeta") or an identifier (a token with three digits or more, an email address). A
 * request to act is about the customer's own order or card; a question about a subject ("what is
 * two-factor authentication", "can learner drivers be added to a policy?") names things in general.
 */
const OWN =
  /\b(?:my|mine|our|ours|me|us|meine?[nmrs]?|unser(?:e[nmrs]?)?|mir|mich|uns|mon|ma|mes|notre|nos|moi|mi|mis|nuestr[oa]s?|me)\b/;
const IDENTIFIER = /(?:\S*\d\S*\d\S*\d\S*|\S+@\S+\.\S+)/;
export function mentionsOwn(message: string): boolean {
  return OWN.test(normalise(message)) || IDENTIFIER.test(message);
}

/**
 * The customer asks for something to be done (en, de, fr, es): "I want to…", "I'd like…", "I need…", "can
 * you…", "please…", "ich möchte…", "können Sie…", "je voudrais…", "pouvez-vous…", "quiero…", "necesito…",
 * "¿puede…". A cue for the router: wanting an action, not learning about a subject.
 */
const WANTS =
  /\b(?:i (?:want|wanna|need|would like|'d like|d like|wish)|i'd like|we (?:want|need|would like|'d like)|we'd like|can you|could you|would you|will you|please|pls|plz|give me|send me|help me|let me|ich (?:mochte|will|brauche|wurde gern|hatte gern|muss)|wir (?:mochten|wollen|brauchen)|konnen sie|konnten sie|kannst du|bitte|je (?:veux|voudrais|souhaite|dois|aimerais)|j'ai besoin|nous (?:voulons|voudrions|souhaitons)|pouvez-vous|pourriez-vous|peux-tu|svp|s'il vous plait|quiero|quisiera|queria|necesito|me gustaria|puede|podeis|podrias|podria|por favor)\b/;
export function wantsAction(message: string): boolean {
  return WANTS.test(normalise(message).replace(/[’]/g, "'"));
}
