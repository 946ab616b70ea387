import type { PlannerPassage } from '../port';
import { contentTerms, endSentence, splitSentences, termMatch, truncate } from '../../../platform/text';
import { FRAGMENT_WORDS, JOIN_COSINE_MARGIN, MAX_QUOTED_SENTENCES, OVERLAP_TIE_WEIGHT, WEAK_TERM_WEIGHT } from './local-tuning';

/** An extractive answer: sentences copied from one passage, the passage it cites, and how sure it is. */
export interface GroundedAnswer {
  content: string;
  /** The quoted passage's ref (one: the citation is the passage quoted). */
  citations: number[];
  /** The quoted passage's calibrated score (P(it answers the question)): the run's confidence. */
  confidence: number;
}

export interface ComposeAnswerInput {
  /** The question as retrieval read it (a follow-up together with the previous question). */
  question: string;
  /** The passage to quote: one whose calibrated score cleared the agent's floor. */
  passage: PlannerPassage;
  /** Character budget of the reply (channel-dependent), including `note`. */
  maxChars: number;
  /** A line said after the quote (the cross-lingual note), in the customer's language. */
  note?: string;
}

/**
 * Words that frame a question rather than name its subject ("how long does it take", "wie lange dauert",
 * "combien de temps", "cuánto tarda"): they weigh less in the word-overlap tie-breaker.
 */
const WEAK_TERMS = new Set(
  `long much many take takes make get go work happen able possible way thing anything something still already
  lange lang dauert dauer braucht geht gehen machen combien temps faut faire prend cuanto tarda tardan tiempo hacer toma`
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((w) => contentTerms(w)),
);

interface Sentence {
  index: number;
  text: string;
  /** Cosine of the question with this sentence's stored vector (undefined: none stored). */
  cos?: number;
  /** Weighted share of the question's words the sentence holds: the tie-breaker. */
  overlap: number;
  fragment: boolean;
}

/**
 * What to say, once retrieval's calibrated score has decided the passage answers (whether to answer is
 * never decided here). A passage that fits the channel's budget (an FAQ answer, a short record) is quoted
 * whole. A longer one gives its best one to MAX_QUOTED_SENTENCES sentences, in document order: best by
 * meaning, the question's cosine with the sentence vectors the index stores (`sentenceCosines`), with word
 * overlap only as a tie-breaker; without stored sentence vectors (lexical retrieval) by word overlap, then
 * position. Confidence is the passage's calibrated score, undiscounted. Null only when the passage has no
 * text to quote.
 */
export function composeAnswer(input: ComposeAnswerInput): GroundedAnswer | null {
  const { passage } = input;
  const budget = input.maxChars - (input.note ? input.note.length + 1 : 0);
  const sentences = analyse(input.question, passage);
  if (sentences.length === 0 || budget <= 0) return null;
  const full = sentences.filter((s) => !s.fragment);
  const quotable = full.length > 0 ? full : sentences;

  const whole = quotable.map((s) => endSentence(s.text)).join(' ');
  let content: string;
  if (whole.length <= budget) content = whole;
  else {
    const ranked = [...quotable].sort(
      (a, b) => rankOf(b) - rankOf(a) || b.overlap - a.overlap || a.index - b.index,
    );
    const best = ranked[0]!;
    const chosen = [best];
    let chars = endSentence(best.text).length;
    for (const s of ranked.slice(1)) {
      if (chosen.length >= MAX_QUOTED_SENTENCES) break;
      if (!joins(best, s)) continue;
      const len = endSentence(s.text).length;
      if (chars + 1 + len > budget) continue;
      chosen.push(s);
      chars += 1 + len;
    }
    content = truncate(chosen.sort((a, b) => a.index - b.index).map((s) => endSentence(s.text)).join(' '), budget);
  }
  if (input.note) content = `${content} ${input.note}`;
  return { content, citations: [passage.ref], confidence: clamp01(passage.score) };
}

/** Meaning first: the sentence's cosine, the overlap a tie-breaker; without vectors the overlap alone. */
const rankOf = (s: Sentence) => (s.cos !== undefined ? s.cos + OVERLAP_TIE_WEIGHT * s.overlap : s.overlap);

/** A further sentence joins the best when it is about as near the question (by cosine, or by words without vectors). */
function joins(best: Sentence, s: Sentence): boolean {
  if (best.cos !== undefined && s.cos !== undefined) return s.cos >= best.cos - JOIN_COSINE_MARGIN;
  return s.overlap > 0 && s.overlap >= best.overlap / 2;
}

/**
 * The passage's sentences with their cosines and word overlap. Cosines are read only when the passage's
 * stored sentence vectors line up with its sentences (the same split, `sentenceEmbeddingTexts`: sentences
 * of three characters or more, the first 16); otherwise none (the text changed, e.g. by redaction).
 */
function analyse(question: string, p: PlannerPassage): Sentence[] {
  const texts = splitSentences(p.text).filter((s) => s.length > 2);
  const cosines = p.sentenceCosines && p.sentenceCosines.length === Math.min(texts.length, 16) ? p.sentenceCosines : undefined;
  const qTerms = [...new Set(contentTerms(question))];
  const weights = qTerms.map((t) => (WEAK_TERMS.has(t) ? WEAK_TERM_WEIGHT : 1));
  const total = weights.reduce((a, b) => a + b, 0);
  return texts.map((text, index) => {
    const terms = new Set(contentTerms(text));
    const overlap = total > 0 ? qTerms.reduce((a, t, i) => a + termMatch(t, terms) * weights[i]!, 0) / total : 0;
    const words = text.split(' ').length;
    // With vectors, a sentence past the 16th has none and ranks below every sentence that has one.
    const cos = cosines ? (cosines[index] ?? -1) : undefined;
    return { index, text, cos, overlap, fragment: words < 4 || (!/[.!?…]$/.test(text) && words < FRAGMENT_WORDS) };
  });
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
export const round3 = (x: number) => Math.round(x * 1000) / 1000;
