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

// ── Extractive answers (what to say; whether to answer is the calibrated score against the floor) ──────

/** A passage longer than the channel's budget gives at most this many sentences (a paragraph's answer is one to three). */
export const MAX_QUOTED_SENTENCES = 3;
/**
 * A further sentence joins the best one when its cosine with the question is at most this much lower: e5's
 * cosines of a question with the sentences of one paragraph spread over about 0.05–0.10, and the sentences
 * within 0.02 of the best are those a reader takes as part of the same answer.
 */
export const JOIN_COSINE_MARGIN = 0.02;
/** Word overlap breaks ties only: a question holding every word of a sentence adds this much to its cosine. */
export const OVERLAP_TIE_WEIGHT = 0.01;
/** Weight of a question-framing word ("how long does it take") against 1 for a subject word, in the overlap. */
export const WEAK_TERM_WEIGHT = 0.2;
/** A line without end punctuation and fewer words than this is a heading or fragment: quoted only when nothing else is there. */
export const FRAGMENT_WORDS = 7;
