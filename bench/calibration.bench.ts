/**
 * npm run bench:calibration — is the fused score an honest probability? For five sets (scifact, squad2,
 * xquad, faq from the shared dev data, and the example help centre with hand-written customer questions),
 * the hybrid candidates of every question are collected through the real service (bench/calibration/collect.ts,
 * cached under data/calibration/), the fusion's logistic model is fitted leaving each set out in turn, and
 * each set's figures come from the fit that did not see it. Prints one JSON line per set and a summary
 * line, and writes a reliability diagram per set (SVG) to data/calibration/.
 *   BENCH_COLLECT=auto|all|off   collect the sets without a cached file (default), every set, or none
 *   BENCH_SETS=a,b               only these sets (default: all five)
 *   BENCH_SCIFACT=cached|full    SciFact's corpus: the documents already in the embedding cache (default,
 *                                reported as a subset) or every document (embeds the rest: slow)
 *   BENCH_SCIFACT_DOCS=N         with BENCH_SCIFACT=cached: at most N documents (every judged one first)
 *   BENCH_SCIFACT_FULL=1         also report SciFact's full corpus as the set `scifact_full`, scored by the
 *                                fit on the sets other than SciFact and in no fit (collected like the others); collected with sentence
 *                                vectors off (EMBEDDINGS_SENTENCES=false: embedding every sentence of 5,183
 *                                abstracts takes hours on this machine), so its ranking is that setting's
 *   BENCH_THREADS=1              threads of the local model while collecting
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/env';
import { CALIBRATION_DIR, collect, type CollectedSet } from './calibration/collect';
import { evaluateAll } from './calibration/evaluate';
import * as sets from './calibration/sets';
import { judgedDocIds, scifactEmbeddingOrder, scifactPassageTexts } from './embed-corpus';
import { EmbeddingsCache } from './embeddings-cache';
import { machineInfo } from './support';

const ALL = ['scifact', 'squad2', 'xquad', 'faq', 'faq_small', 'help_centre'] as const;

function scifactSet(): sets.BenchSet {
  if (process.env.BENCH_SCIFACT === 'full') return sets.scifact();
  const cache = new EmbeddingsCache(loadConfig({}).embeddings.model);
  const judged = judgedDocIds();
  const set = sets.scifact();
  // Documents whose every passage is cached (the judged ones come first in bench/embed-corpus.ts).
  const rank = new Map(scifactEmbeddingOrder(set.docs.map((d) => ({ _id: d.id, title: d.title, text: d.text })), judged).map((d, i) => [d._id, i]));
  const docs = set.docs
    .filter((d) => judged.has(d.id) || scifactPassageTexts([{ _id: d.id, title: d.title, text: d.text }]).every((t) => cache.has('passage', t)))
    .sort((a, b) => rank.get(a.id)! - rank.get(b.id)!)
    .slice(0, Number(process.env.BENCH_SCIFACT_DOCS || Infinity));
  return { ...set, docs, subsample: docs.length < 5183 ? `corpus: the ${docs.length} of 5,183 documents embedded so far (every judged one + a random sample)` : '' };
}

async function main() {
  const wanted = (process.env.BENCH_SETS?.split(',') ?? [...ALL]) as (typeof ALL)[number][];
  const mode = process.env.BENCH_COLLECT ?? 'auto';
  const file = (s: string) => path.join(CALIBRATION_DIR, `${s}.json`);
  const todo = wanted.filter((s) => mode === 'all' || (mode === 'auto' && !fs.existsSync(file(s))));
  if (todo.length) {
    const loaders: Record<string, () => sets.BenchSet> = { scifact: scifactSet, squad2: sets.squad2, xquad: sets.xquad, faq: sets.faq, faq_small: sets.faqSmall, help_centre: sets.helpCentre };
    await collect(todo.map((s) => loaders[s]!()), { threads: Number(process.env.BENCH_THREADS ?? 1) });
  }
  const reportOnly: CollectedSet[] = [];
  if (process.env.BENCH_SCIFACT_FULL) {
    if (mode === 'all' || !fs.existsSync(file('scifact_full'))) await collect([{ ...sets.scifact(), name: 'scifact_full' }], { threads: Number(process.env.BENCH_THREADS ?? 1), sentences: false });
    reportOnly.push(JSON.parse(fs.readFileSync(file('scifact_full'), 'utf8')) as CollectedSet);
  }
  const collected = wanted.filter((s) => fs.existsSync(file(s))).map((s) => JSON.parse(fs.readFileSync(file(s), 'utf8')) as CollectedSet);
  const lines = await evaluateAll(collected, { diagramsDir: CALIBRATION_DIR, reportOnly });
  const load = os.loadavg().map((l) => Math.round(l * 100) / 100);
  for (const line of lines) console.log(JSON.stringify({ ...line, ...(line.summary ? { load_avg: load, machine: machineInfo() } : {}) }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
