/**
 * Exploration (issue 30): does one more feature of the fused score help, with the shipped weights held
 * fixed? An offset fit of one weight per candidate feature, each set read from the fit that left its corpus
 * out, on the calibration sets collected here (help_centre, faq, faq_small: squad2 and scifact take hours
 * to collect on this machine) and on bench:answers' help-centre batches collected the same way (`dev`, and
 * `held` reported only in aggregate). Rates at floor 0.5 for the top passage: answered right, answered
 * wrong (of the in-scope questions), out-of-scope handed off. Not used by the service; see
 * docs/decisions/answers-help-centre-misses.md.
 *
 *   BENCH_DATA=<shared data> npx tsx bench/calibration/offset-features.ts collect   (the two answers batches)
 *   BENCH_DATA=<shared data> BENCH_SETS=help_centre,faq,faq_small npm run bench:calibration   (the sets)
 *   BENCH_DATA=<shared data> npx tsx bench/calibration/offset-features.ts           (the table)
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EXAMPLE_FAQ } from '../../src/app/dev-examples';
import { passageEmbeddingText } from '../../src/knowledge/index/embedding-text';
import { DEFAULT_FUSION, dot, fusionFeatures } from '../../src/knowledge/index/scoring';
import { ANSWERS_DEV_IN_SCOPE, ANSWERS_DEV_OFF_TOPIC, ANSWERS_HELD_OUT_IN_SCOPE, ANSWERS_HELD_OUT_OFF_TOPIC } from '../answers-questions';
import { CACHE_DIR } from '../embeddings-cache';
import { CALIBRATION_DIR, collect, type CollectedQuery, type CollectedSet } from './collect';
import * as sets from './sets';

const σ = (z: number) => 1 / (1 + Math.exp(-z));
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const clip = (x: number, m: number) => Math.max(-m, Math.min(m, x));

/** The passage vectors of the embedding cache (the model's), by passage embedding text. */
function passageVectors(): (text: string) => Float32Array | undefined {
  const file = path.join(CACHE_DIR, 'multilingual-e5-small-q4.jsonl');
  const byKey = new Map<string, string>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    try {
      const { k, v } = JSON.parse(line) as { k: string; v: string };
      byKey.set(k, v);
    } catch {
      // an empty or cut line
    }
  }
  return (text) => {
    const v = byKey.get(createHash('sha256').update(`passage\n${text}`, 'utf8').digest('hex'));
    if (!v) return undefined;
    const b = Buffer.from(v, 'base64');
    return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  };
}

/** Hubness: each document's mean cosine with its K nearest other documents of its base (CSLS's r_p). */
function hubness(docs: sets.BenchDoc[], k = 10): Map<string, number> {
  const get = passageVectors();
  const v = new Map(docs.flatMap((d) => {
    const x = get(passageEmbeddingText({ title: d.title || d.id, heading: null, content: d.text.replace(/\s+/g, ' ').trim() }));
    return x ? [[d.id, x] as const] : [];
  }));
  const out = new Map<string, number>();
  for (const d of docs) {
    const a = v.get(d.id);
    if (!a) continue;
    const sims = docs.filter((o) => o.id !== d.id && (o.base ?? '') === (d.base ?? '') && v.has(o.id)).map((o) => dot(a, v.get(o.id)!)).sort((x, y) => y - x).slice(0, k);
    out.set(d.id, sims.reduce((s, x) => s + x, 0) / Math.max(1, sims.length));
  }
  return out;
}

type Extra = (set: string, q: CollectedQuery, f: number[][]) => number[];

function extras(): Record<string, Extra> {
  const hc = hubness(sets.helpCentre().docs);
  const hubs: Record<string, Map<string, number>> = { help_centre: hc, answers_dev: hc, answers_held: hc, faq: hubness(sets.faq().docs), faq_small: hubness(sets.faqSmall().docs) };
  const otherBest = (xs: number[], i: number) => Math.max(...xs.filter((_, j) => j !== i));
  return {
    small_base: (_s, _q, f) => f.map((r) => r[7]!),
    z_standout: (_s, q) => {
      const cs = q.cands.map((c) => c.cos).sort((a, b) => b - a).slice(1, 10);
      const m = cs.reduce((a, b) => a + b, 0) / Math.max(1, cs.length);
      const sd = Math.sqrt(cs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, cs.length)) || 1;
      return q.cands.map((c) => clip((c.cos - m) / sd, 6));
    },
    cos_margin: (_s, q) => q.cands.map((c, i) => clip(c.cos - otherBest(q.cands.map((o) => o.cos), i), 0.1)),
    lex_margin_share: (_s, q, f) => f.map((r, i) => (r[2]! > 0 ? Math.min(1, (0.2 * q.cands[i]!.x) / Math.max(1e-6, r[2]! + 0.2 * q.cands[i]!.x)) : 0)),
    // The passage's hubness over the mean of the query's candidates: a passage near every other passage of
    // its base is near every question too.
    hubness: (s, q) => {
      const h = hubs[s]!;
      const hs = q.cands.map((c) => h.get(c.doc) ?? Number.NaN);
      const known = hs.filter(Number.isFinite);
      const mean = known.reduce((a, b) => a + b, 0) / Math.max(1, known.length);
      return hs.map((x) => (Number.isFinite(x) ? x - mean : 0));
    },
  };
}

const shipped = (f: number[][]) => f.map((r) => r.reduce((z, v, i) => z + v * (DEFAULT_FUSION.weights[i] ?? 0), DEFAULT_FUSION.bias));

function fitOffset(all: CollectedSet[], g: Extra): number {
  const rows: { z: number; g: number; y: number; w: number }[] = [];
  for (const s of all) {
    const qs = s.queries.filter((q) => q.group !== sets.HELD_OUT && q.cands.length);
    for (const q of qs) {
      const f = fusionFeatures(q.cands, { passages: q.passages });
      const z = shipped(f);
      const e = g(s.set, q, f);
      q.cands.forEach((c, i) => rows.push({ z: z[i]!, g: e[i]!, y: (q.rel[c.doc] ?? 0) > 0 ? 1 : 0, w: 1 / qs.length / q.cands.length }));
    }
  }
  let a = 0;
  for (let it = 0; it < 60; it++) {
    let grad = 0;
    let hess = 1e-9;
    for (const r of rows) {
      const p = σ(r.z + a * r.g);
      grad += r.w * (r.y - p) * r.g;
      hess += r.w * p * (1 - p) * r.g * r.g;
    }
    a += grad / hess;
  }
  return a;
}

function rates(s: CollectedSet, g: Extra, a: number) {
  let inN = 0, right = 0, wrong = 0, offN = 0, handed = 0;
  for (const q of s.queries.filter((x) => x.group !== sets.HELD_OUT)) {
    const f = fusionFeatures(q.cands, { passages: q.passages });
    const e = g(s.set, q, f);
    const sc = shipped(f).map((z, i) => σ(z + a * e[i]!));
    const best = sc.reduce((b, v, i) => (v > sc[b]! ? i : b), 0);
    const answered = (sc[best] ?? 0) >= 0.5;
    if (q.answerable) {
      inN++;
      if (answered && (q.rel[q.cands[best]!.doc] ?? 0) > 0) right++;
      else if (answered) wrong++;
    } else {
      offN++;
      if (!answered) handed++;
    }
  }
  return { right: r3(right / Math.max(1, inN)), wrong: r3(wrong / Math.max(1, inN)), off_topic_handed_off: offN ? r3(handed / offN) : null };
}

const load = (n: string) => JSON.parse(fs.readFileSync(path.join(CALIBRATION_DIR, `${n}.json`), 'utf8')) as CollectedSet;

async function main() {
  if (process.argv[2] === 'collect') {
    const docs = EXAMPLE_FAQ.map((r, i) => ({ id: `hc${i}`, title: r.title, text: r.content, metadata: {} }));
    const idOf = new Map(docs.map((d) => [d.title, d.id]));
    const batch = (name: string, ins: [string, string][], off: string[]) => ({
      name, docs, subsample: '',
      queries: [
        ...ins.map(([text, title], i) => ({ id: `in-${i}`, text, rel: { [idOf.get(title)!]: 1 }, answerable: true })),
        ...off.map((text, i) => ({ id: `off-${i}`, text, rel: {}, answerable: false })),
      ],
    });
    await collect([batch('answers_dev', ANSWERS_DEV_IN_SCOPE, ANSWERS_DEV_OFF_TOPIC), batch('answers_held', ANSWERS_HELD_OUT_IN_SCOPE, ANSWERS_HELD_OUT_OFF_TOPIC)], { log: () => {} });
    return;
  }
  const fitted = ['help_centre', 'faq', 'faq_small'].map(load);
  const corpus = (n: string) => (n === 'faq_small' ? 'faq' : n === 'answers_dev' || n === 'answers_held' ? 'help_centre' : n);
  const read = [...fitted, load('answers_dev'), load('answers_held')];
  for (const [name, g] of Object.entries(extras())) {
    const line: Record<string, unknown> = { feature: name };
    for (const s of read) {
      const a = fitOffset(fitted.filter((o) => corpus(o.set) !== corpus(s.set)), g);
      line[s.set] = { weight: r3(a), before: rates(s, g, 0), after: rates(s, g, a) };
    }
    console.log(JSON.stringify(line));
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
