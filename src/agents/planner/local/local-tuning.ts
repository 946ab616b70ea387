/**
 * The local planner's tuning numbers in one place, each with the reason it has the value it has. They are
 * heuristics of the deterministic planner (not fitted), except where a comment names the fit.
 */

// ── Reply budgets ───────────────────────────────────────────────────────────────────────────────────────

/** SMS and voice replies: about two SMS segments, or 20 seconds of speech. */
export const SHORT_REPLY_CHARS = 300;
/** Chat and email replies: a paragraph a customer reads without scrolling. */
export const LONG_REPLY_CHARS = 700;
/** Fields of a tool result summarised on short channels (more would not fit SHORT_REPLY_CHARS). */
export const SHORT_TOOL_SUMMARY_FIELDS = 3;
/** Fields of a tool result summarised on chat and email. */
export const LONG_TOOL_SUMMARY_FIELDS = 5;

// ── Confidence of replies the planner writes ────────────────────────────────────────────────────────────

/** A reply resting on a successful tool result with something to report. */
export const TOOL_REPLY_CONFIDENCE = 0.85;
/** A tool answered but held nothing to report: the reply is right but says little. */
export const EMPTY_TOOL_REPLY_CONFIDENCE = 0.5;
/** Courtesy replies (greetings, thanks): the reply is certainly appropriate. */
export const SMALL_TALK_CONFIDENCE = 0.9;
/** "I don't have information about that": nothing grounds it. */
export const NO_INFORMATION_CONFIDENCE = 0.1;
/** Asking again for arguments a tool refused: the tool is known to be meant, the values were wrong. */
export const REASK_ARGUMENTS_CONFIDENCE = 0.6;
/** Factor on confidence when part of the work failed (one tool of several, or an answer after a failure). */
export const PARTIAL_FAILURE_FACTOR = 0.8;
/** Factor on an answer found only by reading a short follow-up with the previous question: a guess at what "it" means. */
export const FOLLOW_UP_FACTOR = 0.8;
/** A follow-up with more content words than this stands on its own (it is not read with the previous turn). */
export const FOLLOW_UP_MAX_TERMS = 3;

// ── Tool step ───────────────────────────────────────────────────────────────────────────────────────────

/**
 * An answer from the passages at least this confident wins over a tool call for how-to questions and when
 * a tool would need arguments the customer has not given: explaining beats interrogating. It is the
 * default confidence floor (scores are calibrated probabilities): an answer the agent would hand off at
 * that floor does not displace a call the customer asked for ("what is the status of my order 12345?").
 */
export const ANSWER_OVER_TOOL_CONFIDENCE = 0.5;
/** Lexical path: confidence of asking for a missing argument starts here (a question is a safe step)… */
export const ASK_CONFIDENCE_BASE = 0.5;
/** …rises by this much per unit of lexical tool-match score… */
export const ASK_CONFIDENCE_PER_MATCH = 0.15;
/** …and stops here: a keyword match never makes us sure the customer meant that tool. */
export const ASK_CONFIDENCE_MAX = 0.8;

// ── Lexical tool match (the fallback when embeddings are unavailable) ───────────────────────────────────

/** A distinctive word of the tool's name names what it does. */
export const NAME_WORD_WEIGHT = 1;
/** A distinctive word of the description: half a name word, so two are needed. */
export const DESCRIPTION_WORD_WEIGHT = 0.5;
/** A generic word (get, status, number…) in the name: shared by many tools, weak evidence. */
export const GENERIC_NAME_WORD_WEIGHT = 0.3;
/** A generic word in the description: weaker still. */
export const GENERIC_DESCRIPTION_WORD_WEIGHT = 0.15;
/** One distinctive name word or two distinctive description words choose a tool; generic words alone never. */
export const LEXICAL_TOOL_THRESHOLD = 0.9;

// ── Extractive answers ──────────────────────────────────────────────────────────────────────────────────

/** Below this coverage of the question, a sentence is not taken as answering it. */
export const MIN_COVERAGE = 0.3;
/** Weight of a question-framing word ("how long does it take") against 1 for a subject word. */
export const WEAK_TERM_WEIGHT = 0.2;
/** Bonus per unit of title coverage: a matching title says the passage is on topic, not that this sentence answers. */
export const TITLE_BONUS = 0.15;
/** A sentence's score keeps this share even from a passage retrieval scored 0 (coverage still counts)… */
export const PASSAGE_SCORE_FLOOR = 0.35;
/** …and the rest scales with retrieval's calibrated score. */
export const PASSAGE_SCORE_SPAN = 0.65;
/** Headings and fragments answer poorly: their score is discounted to this share. */
export const FRAGMENT_SHAPE = 0.4;
/** Very long sentences (walls of text) read poorly in a reply. */
export const LONG_SENTENCE_SHAPE = 0.8;
/** Words above which a sentence counts as very long. */
export const LONG_SENTENCE_WORDS = 60;
/** A further sentence joins only when it scores at least this share of the best one. */
export const JOIN_MIN_SHARE = 0.4;
/** …and covers at least this much of the question the answer lacks… */
export const JOIN_MIN_GAIN = 0.15;
/** …or continues a chosen sentence while covering at least this share of what the best one covers. */
export const JOIN_NEIGHBOUR_SHARE = 0.5;
/** From this coverage of the question up, the answer's confidence is its passage's calibrated score, undiscounted (below it, scaled down linearly): a short paraphrase covers few words yet is answered. */
export const FULL_COVERAGE = 0.5;

// ── Cross-lingual answers ───────────────────────────────────────────────────────────────────────────────

/** Confidence of an answer quoted from a passage in another language: retrieval's score, less for coverage unchecked. */
export const CROSS_LINGUAL_FACTOR = 0.8;
/** A passage in another language is quoted only from this calibrated score up (retrieval is more likely right than not). */
export const CROSS_LINGUAL_MIN_SCORE = 0.5;
