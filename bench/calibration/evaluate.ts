/**
 * The calibration bench's fit and figures, from the collected candidates (bench/calibration/collect.ts):
 * a logistic model over the fusion's features (src/knowledge/index/scoring.ts fusionFeatures), fitted by
 * bench/logistic.ts with a small L2 penalty, each set counting equally and each question equally within
 * its set; every set's figures come from the fit on the other sets (leave-one-dataset-out).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_FUSION, FUSION_FEATURES, fusionFeatures, fusionSetting, type FusionModel, type FusionScope } from '../../src/knowledge/index/scoring';
import { round } from '../support';
import type { CollectedCandidate, CollectedQuery, CollectedSet } from './collect';
import { HELD_OUT } from './sets';
import { fitLogisticRegression } from '../logistic';

/** The default confidence_floor the rates are read at. */
export const FLOOR = 0.5;
/** Candidates per question the fit reads: the top of each side (where the answer-or-handoff decision lies). */
const FIT_DEPTH = Number(process.env.BENCH_FIT_DEPTH ?? 20);
const L2 = Number(process.env.BENCH_L2 ?? 0.0003);

type Featurize = (cands: readonly CollectedCandidate[], scope: FusionScope) => number[][];
const σ = (z: number) => 1 / (1 + Math.exp(-z));

/**
 * Weighted L2-penalised logistic regression (the bias unpenalised) on standardised features, returned
 * in the raw features' units: {weights, bias}.
 */
export function fitLogistic(raw: number[][], ys: number[], ws: number[], l2 = L2): FusionModel {
  const dims = raw[0]?.length ?? 0;
  const W = ws.reduce((a, b) => a + b, 0);
  const mean = Array.from({ length: dims }, (_, k) => raw.reduce((a, r, i) => a + ws[i]! * r[k]!, 0) / W);
  const sd = Array.from({ length: dims }, (_, k) => Math.sqrt(raw.reduce((a, r, i) => a + ws[i]! * (r[k]! - mean[k]!) ** 2, 0) / W) || 1);
  const xs = raw.map((r) => r.map((v, k) => (v - mean[k]!) / sd[k]!));
  const z = fitStandardised(xs, ys, ws, l2);
  const weights = z.weights.map((w, k) => w / sd[k]!);
  return { weights, bias: z.bias - weights.reduce((a, w, k) => a + w * mean[k]!, 0) };
}

/** The fit on standardised features: the bias in the last column, L2 `l2` (per unit of total weight) on the others. */
function fitStandardised(xs: number[][], ys: number[], ws: number[], l2: number): FusionModel {
  const d = xs[0]?.length ?? 0;
  const total = ws.reduce((a, b) => a + b, 0);
  const penalty = Array.from({ length: d + 1 }, (_, k) => (k < d ? l2 * total : 0));
  const beta = fitLogisticRegression(xs.map((x) => [...x, 1]), ys, { weights: ws, penalty, maxIterations: 50 });
  return { weights: beta.slice(0, d), bias: beta[d]! };
}

const relevant = (q: CollectedQuery, doc: string) => (q.rel[doc] ?? 0) > 0;
/** A set without its held-out questions (help centre phrasings written after the fit was chosen). */
const withoutHeldOut = (s: CollectedSet): CollectedSet => ({ ...s, queries: s.queries.filter((q) => q.group !== HELD_OUT) });

/**
 * Sets whose unanswerable questions are near misses written against the very paragraph they sit next to
 * (SQuAD 2.0): retrieval features hardly tell them from answerable ones (AUC 0.59 before sentence features, 0.65 with), and the share of
 * them (half, by the set's construction) would only lower every score in every base by a rate that is a
 * property of how that set was made. The fits read these sets' answerable questions; their figures still
 * count every question.
 */
const NEAR_MISS_SETS = new Set(['squad2']);
/** The questions a fit reads from a set. */
const fitQuestions = (s: CollectedSet): CollectedSet => {
  const kept = withoutHeldOut(s);
  return NEAR_MISS_SETS.has(s.set) ? { ...kept, queries: kept.queries.filter((q) => q.answerable) } : kept;
};

/** The candidates the fit reads for a question: the top FIT_DEPTH of each side. */
function fitRows(q: CollectedQuery): number[] {
  const byCos = q.cands.map((c, i) => [c.cos, i] as const).sort((a, b) => b[0] - a[0]).slice(0, FIT_DEPTH).map(([, i]) => i);
  const byX = q.cands.map((c, i) => [c.x, i] as const).filter(([x]) => x > 0).sort((a, b) => b[0] - a[0]).slice(0, FIT_DEPTH).map(([, i]) => i);
  return [...new Set([...byCos, ...byX])];
}

export function fitSets(sets: CollectedSet[], featurize: Featurize = fusionFeatures): FusionModel {
  const xs: number[][] = [];
  const ys: number[] = [];
  const ws: number[] = [];
  for (const s of sets.map(fitQuestions)) {
    for (const q of s.queries) {
      if (q.cands.length === 0) continue;
      const f = featurize(q.cands, { passages: q.passages });
      const rows = fitRows(q);
      for (const i of rows) {
        xs.push(f[i]!);
        ys.push(relevant(q, q.cands[i]!.doc) ? 1 : 0);
        ws.push(1 / s.queries.length / rows.length);
      }
    }
  }
  return fitLogistic(xs, ys, ws);
}

export function scoreQuery(q: CollectedQuery, model: FusionModel, featurize: Featurize = fusionFeatures): number[] {
  return featurize(q.cands, { passages: q.passages }).map((f) => σ(f.reduce((z, v, i) => z + v * (model.weights[i] ?? 0), model.bias)));
}

function ndcgAt10(docs: string[], rel: Record<string, number>): number {
  const seen = [...new Set(docs)].slice(0, 10);
  const dcg = seen.reduce((a, d, i) => a + (2 ** (rel[d] ?? 0) - 1) / Math.log2(i + 2), 0);
  const ideal = Object.values(rel).sort((a, b) => b - a).slice(0, 10).reduce((a, g, i) => a + (2 ** g - 1) / Math.log2(i + 2), 0);
  return ideal ? dcg / ideal : 0;
}

function auc(pos: number[], neg: number[]): number {
  let s = 0;
  for (const p of pos) for (const n of neg) s += p > n ? 1 : p === n ? 0.5 : 0;
  return s / (pos.length * neg.length);
}

interface Bin { n: number; predicted: number; observed: number }
function reliability(pairs: { p: number; y: number }[]): { ece: number; bins: Bin[] } {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, predicted: 0, observed: 0 }));
  for (const { p, y } of pairs) {
    const b = bins[Math.min(9, Math.floor(p * 10))]!;
    b.n++;
    b.predicted += p;
    b.observed += y;
  }
  const ece = bins.reduce((a, b) => a + (b.n ? Math.abs(b.predicted - b.observed) : 0), 0) / Math.max(1, pairs.length);
  return { ece, bins: bins.map((b) => ({ n: b.n, predicted: b.n ? b.predicted / b.n : 0, observed: b.n ? b.observed / b.n : 0 })) };
}

/** The diagram's key, top left inside the plot (where a calibrated set's bars are short). */
function legend(x: number, y: number): string {
  const rows = [
    `<rect x="${x}" y="${y - 8}" width="10" height="9" fill="#4a7dbf" opacity="0.8"/>`,
    `<circle cx="${x + 5}" cy="${y + 10}" r="3" fill="#c33"/>`,
    `<rect x="${x}" y="${y + 20}" width="10" height="9" fill="#ddd"/>`,
    `<line x1="${x}" y1="${y + 37}" x2="${x + 10}" y2="${y + 33}" stroke="#888" stroke-dasharray="4 3"/>`,
  ];
  const labels = ['observed: share the top passage answers', 'mean predicted score', 'questions per bin (tallest = ¼ height)', 'perfect calibration'];
  return `<g font-size="9" fill="#333">${rows.join('')}${labels.map((t, i) => `<text x="${x + 15}" y="${y + i * 14}">${t}</text>`).join('')}</g>`;
}

/** A reliability diagram: observed rate against predicted score in 10 bins, bar width by count. */
function diagram(title: string, bins: Bin[], ece: number): string {
  const W = 360, H = 360, m = 40, s = (W - 2 * m);
  const X = (v: number) => m + v * s;
  const Y = (v: number) => H - m - v * s;
  const max = Math.max(1, ...bins.map((b) => b.n));
  const bars = bins.map((b, i) => `<rect x="${X(i / 10) + 2}" y="${Y(b.n / max * 0.25)}" width="${s / 10 - 4}" height="${(b.n / max) * 0.25 * s}" fill="#ddd"/>`).join('');
  const pts = bins.map((b, i) => (b.n ? `<rect x="${X(i / 10) + 4}" y="${Y(b.observed)}" width="${s / 10 - 8}" height="${Math.max(1, b.observed * s)}" fill="#4a7dbf" opacity="0.8"/><circle cx="${X(b.predicted)}" cy="${Y(b.observed)}" r="3" fill="#c33"/>` : '')).join('');
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) => `<text x="${X(t)}" y="${H - m + 14}" font-size="10" text-anchor="middle">${t}</text><text x="${m - 6}" y="${Y(t) + 3}" font-size="10" text-anchor="end">${t}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif"><rect width="${W}" height="${H}" fill="#fff"/>
<text x="${W / 2}" y="16" font-size="13" text-anchor="middle">${title}: top passage, ECE ${ece.toFixed(3)}</text>
<rect x="${m}" y="${m}" width="${s}" height="${s}" fill="none" stroke="#999"/>${bars}${pts}
<line x1="${X(0)}" y1="${Y(0)}" x2="${X(1)}" y2="${Y(1)}" stroke="#888" stroke-dasharray="4 3"/>${ticks}
<text x="${W / 2}" y="${H - 8}" font-size="11" text-anchor="middle">predicted P(top passage answers)</text>
<text x="12" y="${H / 2}" font-size="11" text-anchor="middle" transform="rotate(-90 12 ${H / 2})">observed share answered</text>${legend(m + 8, m + 8)}</svg>`;
}

export interface SetFigures {
  set: string;
  questions: number;
  ndcg_at_10: { lexical: number; dense: number; hybrid: number };
  ece: number;
  ece_passages_top10: number;
  top1_accuracy: number;
  auc_answerable?: number;
  answer_rate_in_scope?: number;
  handoff_rate_out_of_scope?: number;
}

/** A set's figures under `model` (from a fit that did not see it). */
export function figures(all: CollectedSet, model: FusionModel, featurize: Featurize = fusionFeatures, diagramsDir?: string): SetFigures & Record<string, unknown> {
  const held = all.queries.filter((q) => q.group === HELD_OUT);
  const s = withoutHeldOut(all);
  const heldOut = held.length ? figures({ ...s, queries: held.map((q) => ({ ...q, group: undefined })) }, model, featurize) : undefined;
  const answerable = s.queries.filter((q) => q.answerable);
  const nd = { lexical: 0, dense: 0, hybrid: 0 };
  const top1: { p: number; y: number }[] = [];
  const passages: { p: number; y: number }[] = [];
  const pos: number[] = [];
  const neg: number[] = [];
  const groups = new Map<string, { n: number; lexical: number; dense: number; hybrid: number; answered: number }>();
  for (const q of s.queries) {
    const scores = scoreQuery(q, model, featurize);
    const order = q.cands.map((c, i) => ({ c, p: scores[i]! })).sort((a, b) => b.p - a.p);
    const top = order[0];
    const p = top?.p ?? 0;
    top1.push({ p, y: top && relevant(q, top.c.doc) ? 1 : 0 });
    for (const o of order.slice(0, 10)) passages.push({ p: o.p, y: relevant(q, o.c.doc) ? 1 : 0 });
    (q.answerable ? pos : neg).push(p);
    if (!q.answerable) continue;
    const lex = q.cands.filter((c) => c.lexical).sort((a, b) => b.x - a.x).map((c) => c.doc);
    const den = q.cands.filter((c) => c.dense).sort((a, b) => b.cos - a.cos).map((c) => c.doc);
    const hyb = order.map((o) => o.c.doc);
    const v = { lexical: ndcgAt10(lex, q.rel), dense: ndcgAt10(den, q.rel), hybrid: ndcgAt10(hyb, q.rel) };
    nd.lexical += v.lexical; nd.dense += v.dense; nd.hybrid += v.hybrid;
    if (q.group) {
      const g = groups.get(q.group) ?? { n: 0, lexical: 0, dense: 0, hybrid: 0, answered: 0 };
      g.n++; g.lexical += v.lexical; g.dense += v.dense; g.hybrid += v.hybrid; g.answered += p >= FLOOR ? 1 : 0;
      groups.set(q.group, g);
    }
  }
  const n = Math.max(1, answerable.length);
  const rel1 = reliability(top1);
  if (diagramsDir) {
    fs.mkdirSync(diagramsDir, { recursive: true });
    fs.writeFileSync(path.join(diagramsDir, `reliability-${s.set}.svg`), diagram(s.set, rel1.bins, rel1.ece));
  }
  return {
    set: s.set,
    questions: s.queries.length,
    ...(s.subsample ? { subsample: s.subsample } : {}),
    documents: s.documents,
    passages: s.passages,
    ndcg_at_10: { lexical: round(nd.lexical / n, 4), dense: round(nd.dense / n, 4), hybrid: round(nd.hybrid / n, 4) },
    ece: round(rel1.ece, 4),
    ece_passages_top10: round(reliability(passages).ece, 4),
    top1_accuracy: round(top1.reduce((a, t) => a + t.y, 0) / top1.length, 4),
    mean_top_score: round(top1.reduce((a, t) => a + t.p, 0) / top1.length, 4),
    ...(neg.length ? { auc_answerable: round(auc(pos, neg), 4) } : {}),
    answer_rate_in_scope: round(pos.filter((p) => p >= FLOOR).length / Math.max(1, pos.length), 4),
    ...(neg.length ? { handoff_rate_out_of_scope: round(neg.filter((p) => p < FLOOR).length / neg.length, 4) } : {}),
    ...(groups.size
      ? { groups: Object.fromEntries([...groups].map(([k, g]) => [k, { ndcg_at_10: { lexical: round(g.lexical / g.n, 4), dense: round(g.dense / g.n, 4), hybrid: round(g.hybrid / g.n, 4) }, answer_rate: round(g.answered / g.n, 3) }])) }
      : {}),
    reliability: rel1.bins.map((b) => [b.n, round(b.predicted, 3), round(b.observed, 3)]),
    ...(heldOut
      ? { held_out: { questions: heldOut.questions, top1_accuracy: heldOut.top1_accuracy, ece: heldOut.ece, auc_answerable: heldOut.auc_answerable, answer_rate_in_scope: heldOut.answer_rate_in_scope, handoff_rate_out_of_scope: heldOut.handoff_rate_out_of_scope } }
      : {}),
  };
}

/** tool-routing's figures, when its bench module is there (bench/tool-routing.ts). */
async function toolRouting(): Promise<{ tool_precision: number; tool_recall: number } | undefined> {
  const file = path.resolve(__dirname, '../tool-routing.ts');
  if (!fs.existsSync(file)) return undefined;
  type Measure = () => Promise<{ tool_precision: number; tool_recall: number }>;
  const mod = (await import(file)) as { measureToolRouting?: Measure; default?: Measure };
  const fn = mod.measureToolRouting ?? mod.default;
  if (typeof fn !== 'function') return undefined;
  const r = await fn();
  return { tool_precision: r.tool_precision, tool_recall: r.tool_recall };
}

/**
 * The fit a set is scored by: every set of another corpus. scifact_full is SciFact; squad2 and xquad both
 * come from SQuAD's Wikipedia paragraphs (some paragraphs and questions are in both), so each leaves the
 * other out too; faq_small is the FAQ's records and questions in small bases, so it and faq leave each other out.
 */
const corpusOf = (s: CollectedSet) => ({ scifact_full: 'scifact', squad2: 'squad', xquad: 'squad', faq_small: 'faq' })[s.set] ?? s.set;

/**
 * Every set's figures from the fit that left it out, then the `reportOnly` sets (in no fit, scored by the
 * fit on the sets of other corpora), then the summary line (over the fitted sets).
 */
export async function evaluateAll(sets: CollectedSet[], opts: { diagramsDir: string; featurize?: Featurize; reportOnly?: CollectedSet[] }) {
  const featurize = opts.featurize ?? fusionFeatures;
  const lines: Array<Record<string, unknown> & { summary?: boolean }> = [];
  // Sets of one corpus leave out the same sets (squad2 and xquad, scifact and scifact_full): one fit each.
  const fits = new Map<string, FusionModel>();
  const scored = (s: CollectedSet) => {
    const key = corpusOf(s);
    const model = fits.get(key) ?? fitSets(sets.filter((o) => corpusOf(o) !== key), featurize);
    fits.set(key, model);
    const f = figures(s, model, featurize, opts.diagramsDir);
    lines.push({ ...f, fit: { left_out: sets.filter((o) => corpusOf(o) === corpusOf(s)).map((o) => o.set), weights: Object.fromEntries(model.weights.map((w, i) => [FUSION_FEATURES[i] ?? i, round(w, 3)])), bias: round(model.bias, 3) } });
    return f;
  };
  const rows = sets.map(scored);
  const extra = (opts.reportOnly ?? []).map(scored);
  const all = fitSets(sets, featurize);
  // The lexical-only scores over the lexical side's top 10: LEXICAL_MODEL (x read against the other hits,
  // as lexicalScores computes them) and, for a passage alone, CALIBRATION_A/C (x only).
  const lx: number[][] = [], l1: number[][] = [], ly: number[] = [], lw: number[] = [];
  for (const s of sets.map(fitQuestions)) {
    for (const q of s.queries) {
      const lex = q.cands.filter((c) => c.lexical && c.x > 0).sort((a, b) => b.x - a.x);
      const sorted = lex.map((c) => c.x);
      const background = Array.from({ length: 9 }, (_, i) => sorted[i + 1] ?? 0).reduce((a, b) => a + b, 0) / 9;
      for (const c of lex.slice(0, FIT_DEPTH)) {
        const next = c.x === sorted[0] ? (sorted[1] ?? 0) : sorted[0]!;
        lx.push([c.x, Math.max(-0.5, Math.min(0.5, c.x - next)), c.x - background]);
        l1.push([c.x]);
        ly.push(relevant(q, c.doc) ? 1 : 0);
        lw.push(1 / s.queries.length / Math.min(FIT_DEPTH, lex.length));
      }
    }
  }
  const lexical = fitLogistic(lx, ly, lw);
  const lexicalAlone = fitLogistic(l1, ly, lw);
  const hc = rows.find((r) => r.set === 'help_centre');
  const faq = rows.find((r) => r.set === 'faq');
  const tools = await toolRouting();
  lines.push({
    summary: true,
    max_ece: round(Math.max(...rows.map((r) => r.ece)), 4),
    min_hybrid_minus_best_side: round(Math.min(...rows.map((r) => r.ndcg_at_10.hybrid - Math.max(r.ndcg_at_10.lexical, r.ndcg_at_10.dense))), 4),
    ...Object.fromEntries(extra.map((r) => [`${r.set}_ndcg_at_10`, r.ndcg_at_10])),
    help_centre_answer_rate: hc?.answer_rate_in_scope ?? null,
    help_centre_handoff_rate: hc?.handoff_rate_out_of_scope ?? null,
    help_centre_held_out: (hc as { held_out?: unknown } | undefined)?.held_out ?? null,
    faq_auc_answerable: faq?.auc_answerable ?? null,
    ...(tools ?? {}),
    floor: FLOOR,
    sets: rows.map((r) => r.set),
    fit_all_sets: { features: FUSION_FEATURES, weights: all.weights.map((w) => round(w, 3)), bias: round(all.bias, 3), EMBEDDINGS_FUSION: fusionSetting({ weights: all.weights.map((w) => round(w, 3)), bias: round(all.bias, 3) }) },
    shipped: { weights: DEFAULT_FUSION.weights, bias: DEFAULT_FUSION.bias },
    lexical_only_fit: {
      LEXICAL_MODEL: { weights: lexical.weights.map((w) => round(w, 3)), bias: round(lexical.bias, 3) },
      CALIBRATION_A: round(lexicalAlone.weights[0]!, 3), CALIBRATION_C: round(lexicalAlone.bias, 3),
    },
  });
  return lines;
}
