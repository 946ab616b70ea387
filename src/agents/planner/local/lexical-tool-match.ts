import type { PlannerTool } from '../port';
import {
  DESCRIPTION_WORD_WEIGHT,
  GENERIC_DESCRIPTION_WORD_WEIGHT,
  GENERIC_NAME_WORD_WEIGHT,
  LEXICAL_TOOL_THRESHOLD,
  NAME_WORD_WEIGHT,
} from './local-tuning';
import { canonicalTerm, contentTerms, identifierWords, normalise, pairMatch, stem, STOP_WORDS } from '../../../platform/text';

/**
 * Which tool a message asks for, from the words of the tools' names and descriptions. A message word
 * scores the weight of the best tool word it matches: a distinctive word of the name 1.0, of the
 * description 0.5; generic words (get, lookup, status, details, …) 0.3 in the name and 0.15 in the
 * description. A tool is chosen at a total of at least TOOL_MATCH_THRESHOLD, so one distinctive name word
 * ("order" for lookup_order) or two distinctive description words are enough, generic words alone never.
 * Common customer-service words of de/fr/es count as their English equivalent (canonicalTerm).
 */
export interface ToolMatch {
  tool: PlannerTool;
  score: number;
}

export const TOOL_MATCH_THRESHOLD = LEXICAL_TOOL_THRESHOLD;

const GENERIC = new Set(
  `get set lookup look up fetch check find search list create update retrieve show view api tool by info
  information detail details data number id status state current given provided customer user request`
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => stem(normalise(w))),
);

const vocabularies = new WeakMap<PlannerTool, Map<string, number>>();

function vocabulary(tool: PlannerTool): Map<string, number> {
  let v = vocabularies.get(tool);
  if (v) return v;
  v = new Map<string, number>();
  const put = (t: string, w: number) => v!.set(t, Math.max(v!.get(t) ?? 0, w));
  for (const t of contentTerms(tool.description ?? '')) if (!/\d/.test(t)) put(t, GENERIC.has(t) ? GENERIC_DESCRIPTION_WORD_WEIGHT : DESCRIPTION_WORD_WEIGHT);
  for (const w of identifierWords(tool.name)) {
    const t = stem(normalise(w));
    if (!STOP_WORDS.has(t) && t.length > 1) put(t, GENERIC.has(t) ? GENERIC_NAME_WORD_WEIGHT : NAME_WORD_WEIGHT);
  }
  vocabularies.set(tool, v);
  return v;
}

/** Score of one tool against the message's terms. */
export function scoreTool(terms: readonly string[], tool: PlannerTool): number {
  const v = vocabulary(tool);
  let score = 0;
  for (const t of new Set(terms.map(canonicalTerm))) {
    if (/\d/.test(t)) continue;
    let best = v.get(t) ?? 0;
    if (best < 1) for (const [s, w] of v) best = Math.max(best, pairMatch(t, s) * w);
    score += best;
  }
  return score;
}

/** The best-matching tool not in `exclude`, or null when none reaches the threshold. */
export function matchTool(text: string, tools: readonly PlannerTool[], exclude: ReadonlySet<string>): ToolMatch | null {
  const terms = contentTerms(text);
  if (terms.length === 0) return null;
  let best: ToolMatch | null = null;
  for (const tool of tools) {
    if (exclude.has(tool.name)) continue;
    const score = scoreTool(terms, tool);
    if (score >= TOOL_MATCH_THRESHOLD && (!best || score > best.score)) best = { tool, score };
  }
  return best;
}
