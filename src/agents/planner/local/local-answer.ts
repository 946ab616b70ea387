import type { PlannerPassage } from '../port';
import { contentTerms, endSentence, splitSentences, termMatch, truncate } from '../../../platform/text';
import {
  CROSS_LINGUAL_FACTOR,
  FRAGMENT_SHAPE,
  FULL_COVERAGE,
  JOIN_MIN_GAIN,
  JOIN_MIN_SHARE,
  JOIN_NEIGHBOUR_SHARE,
  LONG_SENTENCE_SHAPE,
  LONG_SENTENCE_WORDS,
  MIN_COVERAGE,
  PASSAGE_SCORE_FLOOR,
  PASSAGE_SCORE_SPAN,
  TITLE_BONUS,
  WEAK_TERM_WEIGHT,
} from './local-tuning';

export { MIN_COVERAGE };

/** An extractive answer: sentences copied from the passages, the refs they come from, and how good it is. */
export interface GroundedAnswer {
  content: string;
  citations: number[];
  /** Share of the question's (weighted) terms the chosen sentences cover, 0..1. */
  coverage: number;
  /** Max calibrated score among the cited passages. */
  retrieval: number;
  /** The cited passage's calibrated score (P(it answers)), discounted below half coverage; see composeAnswer. */
  confidence: number;
}

export interface ComposeAnswerInput {
  question: string;
  passages: PlannerPassage[];
  /** Character budget of the reply (channel-dependent). */
  maxChars: number;
  maxSentences?: number;
}

/**
 * Words that frame a question rather than name its subject ("how long does it take", "wie lange dauert",
 * "combien de temps", "cuánto tarda"): they weigh 0.2 against 1 for other content words.
 */
const WEAK_TERMS = new Set(
  `long much many take takes make get go work happen able possible way thing anything something still already
  lange lang dauert dauer braucht geht gehen machen combien temps faut faire prend cuanto tarda tardan tiempo hacer toma`
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((w) => contentTerms(w)),
);

interface Candidate {
  passageIndex: number;
  sentenceIndex: number;
  ref: number;
  text: string;
  matches: number[];
  coverage: number;
  score: number;
  fragment: boolean;
}

/**
 * Picks up to three sentences that best answer `question`. Each content word of the question counts (weak
 * question-framing words less); words no sentence contains still count, so a question about something
 * the passages do not mention cannot reach full coverage. A sentence scores its coverage
 * (plus a little for a matching passage title), scaled by the passage's calibrated score; headings and
 * fragments are discounted. The best sentence leads; others join when they cover terms the answer lacks,
 * or continue a chosen sentence, while the character budget allows.
 *
 * Confidence = the max calibrated score of the cited passages, which is already P(the passage answers the
 * question) (docs/decisions/knowledge-calibrated-score.md), discounted in proportion only when the chosen
 * sentences cover less than FULL_COVERAGE of the question's words (a short paraphrase such as "what's your
 * return window" keeps its score; a question half about something the passage never mentions does not).
 * Null when no sentence covers at least MIN_COVERAGE of the question.
 */
export function composeAnswer(input: ComposeAnswerInput): GroundedAnswer | null {
  const qTerms = [...new Set(contentTerms(input.question))];
  if (qTerms.length === 0 || input.passages.length === 0) return null;

  const analysed = input.passages.map((p) => analyse(p));
  const sentencesByPassage = analysed.map((a) => a.sentences);
  const termSets = analysed.map((a) => a.termSets);
  const titleSets = analysed.map((a) => a.titleTerms);
  const n = termSets.reduce((a, ss) => a + ss.length, 0);
  if (n === 0) return null;

  const weights = qTerms.map((t) => (WEAK_TERMS.has(t) ? WEAK_TERM_WEIGHT : 1));
  const totalWeight = weights.reduce((a, b) => a + b, 0);

  const candidates: Candidate[] = [];
  input.passages.forEach((p, pi) => {
    const titleMatches = qTerms.map((t) => termMatch(t, titleSets[pi]!));
    const titleCoverage = titleMatches.reduce((a, m, i) => a + m * weights[i]!, 0) / totalWeight;
    const passageScore = Number.isFinite(p.score) ? Math.min(1, Math.max(0, p.score)) : 0;
    sentencesByPassage[pi]!.forEach((text, si) => {
      const matches = qTerms.map((t) => termMatch(t, termSets[pi]![si]!));
      const coverage = matches.reduce((a, m, i) => a + m * weights[i]!, 0) / totalWeight;
      if (coverage === 0) return;
      const words = text.split(' ').length;
      const fragment = words < 4 || (!/[.!?…]$/.test(text) && words < 7);
      const shape = fragment ? FRAGMENT_SHAPE : words > LONG_SENTENCE_WORDS ? LONG_SENTENCE_SHAPE : 1;
      const score = (coverage + TITLE_BONUS * titleCoverage) * (PASSAGE_SCORE_FLOOR + PASSAGE_SCORE_SPAN * passageScore) * shape;
      candidates.push({ passageIndex: pi, sentenceIndex: si, ref: p.ref, text, matches, coverage, score, fragment });
    });
  });
  if (candidates.length === 0) return null;
  candidates.sort((a, b) => b.score - a.score || a.passageIndex - b.passageIndex || a.sentenceIndex - b.sentenceIndex);
  const best = candidates[0]!;
  if (best.coverage < MIN_COVERAGE) return null;

  const maxSentences = input.maxSentences ?? 3;
  const chosen: Candidate[] = [best];
  const covered = [...best.matches];
  let chars = best.text.length;
  const isNextTo = (c: Candidate) =>
    chosen.some((x) => x.passageIndex === c.passageIndex && Math.abs(x.sentenceIndex - c.sentenceIndex) === 1);
  for (const c of candidates.slice(1)) {
    if (chosen.length >= maxSentences) break;
    if (c.fragment || chosen.some((x) => x.text.toLowerCase() === c.text.toLowerCase()) || c.score < JOIN_MIN_SHARE * best.score || chars + 1 + c.text.length > input.maxChars) continue;
    const gain = c.matches.reduce((a, m, i) => a + Math.max(0, m - covered[i]!) * weights[i]!, 0) / totalWeight;
    if (gain < JOIN_MIN_GAIN && !(isNextTo(c) && c.coverage >= JOIN_NEIGHBOUR_SHARE * best.coverage)) continue;
    chosen.push(c);
    c.matches.forEach((m, i) => (covered[i] = Math.max(covered[i]!, m)));
    chars += 1 + c.text.length;
  }

  // The best sentence's passage first, then others in the order chosen; document order within a passage.
  const groupOrder = [...new Set(chosen.map((c) => c.passageIndex))];
  chosen.sort(
    (a, b) => groupOrder.indexOf(a.passageIndex) - groupOrder.indexOf(b.passageIndex) || a.sentenceIndex - b.sentenceIndex,
  );
  const content = truncate(chosen.map((c) => endSentence(c.text)).join(' '), input.maxChars);
  const citations = [...new Set(chosen.map((c) => c.ref))].sort((a, b) => a - b);
  const coverage = covered.reduce((a, m, i) => a + m * weights[i]!, 0) / totalWeight;
  const cited = input.passages.filter((p) => citations.includes(p.ref));
  const retrieval = Math.max(...cited.map((p) => (Number.isFinite(p.score) ? Math.min(1, Math.max(0, p.score)) : 0)));
  const confidence = round3(retrieval * Math.min(1, coverage / FULL_COVERAGE));
  return { content, citations, coverage: round3(coverage), retrieval, confidence };
}

interface AnalysedPassage {
  sentences: string[];
  termSets: Array<Set<string>>;
  titleTerms: Set<string>;
}

/**
 * Sentences and their terms per passage text, kept for the most recent passages: a run plans again with the
 * same passages after each tool call, and popular articles recur across conversations.
 */
const analysisCache = new Map<string, AnalysedPassage>();
const ANALYSIS_CACHE_SIZE = 512;

function analyse(p: PlannerPassage): AnalysedPassage {
  const key = `${p.title}\u0000${p.text}`;
  const hit = analysisCache.get(key);
  if (hit) return hit;
  const sentences = splitSentences(p.text);
  const analysed = { sentences, termSets: sentences.map((s) => new Set(contentTerms(s))), titleTerms: new Set(contentTerms(p.title)) };
  if (analysisCache.size >= ANALYSIS_CACHE_SIZE) analysisCache.delete(analysisCache.keys().next().value!);
  analysisCache.set(key, analysed);
  return analysed;
}

/**
 * A passage written in another language than the question: the question's words cannot be matched with its
 * sentences, so the answer is the passage's leading sentences (headings and fragments skipped), in the
 * passage's language, up to three within `maxChars`. Retrieval found the passage by meaning (the embedding
 * model is multilingual); confidence = its calibrated score × CROSS_LINGUAL_FACTOR, since coverage of the
 * question cannot be checked word by word. Null when the passage has no full sentence.
 */
export function leadAnswer(passage: PlannerPassage, maxChars: number): GroundedAnswer | null {
  const sentences = analyse(passage).sentences.filter((t) => t.split(' ').length >= 4 && /[.!?…]$/.test(t));
  const chosen: string[] = [];
  for (const t of sentences) {
    if (chosen.length >= 3 || [...chosen, t].join(' ').length > maxChars) break;
    chosen.push(t);
  }
  if (chosen.length === 0) return null;
  const retrieval = Number.isFinite(passage.score) ? Math.min(1, Math.max(0, passage.score)) : 0;
  return { content: chosen.join(' '), citations: [passage.ref], coverage: 0, retrieval, confidence: round3(retrieval * CROSS_LINGUAL_FACTOR) };
}

export const round3 = (x: number) => Math.round(x * 1000) / 1000;
