/**
 * The calibration bench's data sets, read from the shared BEIR-format folders (benchDataDir) plus the
 * example help centre. Each becomes documents (one record each, with metadata) and judged questions.
 * Subsamples are fixed (a hash of the id), so every run reads the same questions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EXAMPLE_FAQ } from '../../src/app/dev-examples';
import { benchDataDir } from '../support';
import { HELP_CENTRE_FRESH_IN_SCOPE, HELP_CENTRE_FRESH_OFF_TOPIC, HELP_CENTRE_HELD_OUT_IN_SCOPE, HELP_CENTRE_HELD_OUT_OFF_TOPIC, HELP_CENTRE_IN_SCOPE, HELP_CENTRE_OFF_TOPIC } from './help-centre-questions';

/** `base`: the knowledge base the document is ingested in, within its set (absent: the set's one base). */
export interface BenchDoc { id: string; title: string; text: string; metadata: Record<string, string>; base?: string }
export interface BenchQuery {
  id: string;
  text: string;
  /** Relevance grade per doc id; empty for an unanswerable question. */
  rel: Record<string, number>;
  answerable: boolean;
  /** A metadata filter the question is asked with (xquad: its locale, or `en` for the cross-lingual case). */
  filter?: Record<string, string>;
  /** Sub-group for per-group figures (xquad: locale and mono/cross). */
  group?: string;
  /** The base (BenchDoc.base) the question is asked against; absent: the set's one base. */
  base?: string;
}
export interface BenchSet { name: string; docs: BenchDoc[]; queries: BenchQuery[]; subsample: string }

const hash = (s: string) => {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
};
/** A fixed pseudo-random fraction of ids (by hash). */
export const sample = <T>(items: T[], idOf: (t: T) => string, n: number): T[] => [...items].sort((a, b) => hash(idOf(a)) - hash(idOf(b))).slice(0, n);

/** The rows of a set's JSON-lines file (corpus.jsonl, queries.jsonl). */
export const jsonl = <T>(set: string, file: string): T[] =>
  fs.readFileSync(path.join(benchDataDir(set), file), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);
/** A set's judgements (qrels/<file>): relevance grade per doc id, per question id. */
export function qrels(set: string, file = 'test.tsv'): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const line of fs.readFileSync(path.join(benchDataDir(set), 'qrels', file), 'utf8').split('\n').slice(1)) {
    const [q, d, g] = line.trim().split('\t');
    if (!q || !d) continue;
    out.set(q, { ...(out.get(q) ?? {}), [d]: Number(g) });
  }
  return out;
}
type RawDoc = { _id: string; title: string; text: string; metadata?: Record<string, unknown> };
type RawQuery = { _id: string; text: string; metadata?: Record<string, unknown> };
const toDoc = (d: RawDoc): BenchDoc => ({
  id: d._id, title: d.title || '', text: d.text || d.title,
  metadata: Object.fromEntries(Object.entries(d.metadata ?? {}).map(([k, v]) => [k, String(v)])),
});

/** SciFact: all 300 test claims; the corpus is given by the caller (every document, or the cached ones). */
export function scifact(keepDoc: (id: string) => boolean = () => true): BenchSet {
  const rel = qrels('scifact');
  const docs = jsonl<RawDoc>('scifact', 'corpus.jsonl').filter((d) => keepDoc(d._id)).map(toDoc);
  const queries = jsonl<RawQuery>('scifact', 'queries.jsonl').filter((q) => rel.has(q._id)).map((q) => ({ id: q._id, text: q.text, rel: rel.get(q._id)!, answerable: true }));
  return { name: 'scifact', docs, queries, subsample: '' };
}

/** SQuAD 2.0: the paragraphs of every fourth article; 150 answerable and 150 unanswerable questions on them. */
export function squad2(): BenchSet {
  const docs = jsonl<RawDoc>('squad2', 'corpus.jsonl').filter((d) => Number(/^a(\d+)p/.exec(d._id)?.[1] ?? 1) % 4 === 0).map(toDoc);
  const ids = new Set(docs.map((d) => d.id));
  const all = jsonl<RawQuery>('squad2', 'queries.jsonl').filter((q) => ids.has(String(q.metadata?.paragraph)));
  const pick = (answerable: boolean) => sample(all.filter((q) => q.metadata?.answerable === answerable), (q) => q._id, 150);
  const queries = [...pick(true), ...pick(false)].map((q) => ({
    id: q._id, text: q.text, answerable: q.metadata?.answerable === true,
    rel: q.metadata?.answerable === true ? { [String(q.metadata.paragraph)]: 1 } : {},
  }));
  return { name: 'squad2', docs, queries, subsample: `paragraphs of every fourth article (${docs.length}); 150 answerable + 150 unanswerable questions on them` };
}

/**
 * XQuAD: every fourth paragraph in the four locales; 50 questions on them asked in each locale with that
 * locale as filter (monolingual), and the de/es/ro ones again against the English paragraphs only.
 */
export function xquad(): BenchSet {
  const docs = jsonl<RawDoc>('xquad', 'corpus.jsonl').filter((d) => Number(d.metadata?.paragraph) % 4 === 0).map(toDoc);
  const raw = jsonl<RawQuery>('xquad', 'queries.jsonl').filter((q) => Number(q.metadata?.paragraph) % 4 === 0);
  const chosen = new Set(sample(raw.filter((q) => q.metadata?.locale === 'en'), (q) => q._id, 50).map((q) => q._id.slice(3)));
  const mono = qrels('xquad');
  const cross = qrels('xquad', 'crosslingual.tsv');
  const queries: BenchQuery[] = [];
  for (const q of raw.filter((r) => chosen.has(r._id.slice(3)))) {
    const locale = String(q.metadata?.locale);
    queries.push({ id: q._id, text: q.text, rel: mono.get(q._id)!, answerable: true, filter: { locale }, group: `mono-${locale}` });
    if (locale !== 'en') queries.push({ id: `${q._id}~en`, text: q.text, rel: cross.get(q._id)!, answerable: true, filter: { locale: 'en' }, group: `cross-${locale}` });
  }
  return { name: 'xquad', docs, queries, subsample: `every fourth paragraph (${docs.length} in 4 locales); 50 questions × 4 locales filtered to their own, + 50 × 3 against English` };
}

/** The CLINC150 FAQ: all 150 records; 300 in-scope questions (2 per intent) and 150 out-of-scope ones. */
export function faq(): BenchSet {
  const docs = jsonl<RawDoc>('faq', 'corpus.jsonl').map(toDoc);
  const rel = qrels('faq');
  const all = jsonl<RawQuery>('faq', 'queries.jsonl');
  const byIntent = new Map<string, RawQuery[]>();
  for (const q of all.filter((r) => r.metadata?.answerable === true)) byIntent.set(String(q.metadata?.intent), [...(byIntent.get(String(q.metadata?.intent)) ?? []), q]);
  const inScope = [...byIntent.values()].flatMap((qs) => sample(qs, (q) => q._id, 2));
  const oos = sample(all.filter((q) => q.metadata?.answerable === false), (q) => q._id, 150);
  const queries = [...inScope, ...oos].map((q) => ({ id: q._id, text: q.text, answerable: q.metadata?.answerable === true, rel: rel.get(q._id) ?? {} }));
  return { name: 'faq', docs, queries, subsample: '300 of 4,500 in-scope questions (2 per intent), 150 of 1,000 out-of-scope' };
}

/** Records per base of `faq_small`: the size of the example help centre. */
const SMALL_BASE_RECORDS = 8;

/**
 * The FAQ in small bases: its 150 records in 19 knowledge bases of (at most) 8, as a business with a
 * help centre of eight articles has. Each of faq()'s in-scope questions is asked against the base holding
 * its record (answerable) and against the next base (not answerable there: its record is elsewhere); each
 * out-of-scope question against one base. What a small base does to the score (an off-topic question
 * standing out from a background of seven) is then seen in a set other than the help centre.
 */
export function faqSmall(): BenchSet {
  const full = faq();
  const ordered = [...full.docs].sort((a, b) => hash(a.id) - hash(b.id));
  const bases = Math.ceil(ordered.length / SMALL_BASE_RECORDS);
  const baseOf = new Map(ordered.map((d, i) => [d.id, Math.floor(i / SMALL_BASE_RECORDS)]));
  const docs = ordered.map((d) => ({ ...d, base: `b${baseOf.get(d.id)}` }));
  const queries: BenchQuery[] = full.queries.flatMap((q) => {
    if (!q.answerable) return [{ ...q, base: `b${hash(q.id) % bases}` }];
    const own = baseOf.get(Object.keys(q.rel)[0]!)!;
    return [
      { ...q, base: `b${own}` },
      { ...q, id: `${q.id}~elsewhere`, rel: {}, answerable: false, base: `b${(own + 1) % bases}` },
    ];
  });
  return { name: 'faq_small', docs, queries, subsample: `faq()'s records in ${bases} bases of ${SMALL_BASE_RECORDS}; its in-scope questions asked against their own base and the next one, its out-of-scope ones against one` };
}

/** The group of questions no fit reads and the set's own figures leave out (reported on their own). */
export const HELD_OUT = 'held_out';

/** The example help centre (8 records) with the hand-written customer questions (and a held-out batch, the third). */
export function helpCentre(): BenchSet {
  const docs = EXAMPLE_FAQ.map((r, i) => ({ id: `hc${i}`, title: r.title, text: r.content, metadata: {} }));
  const idOf = new Map(docs.map((d) => [d.title, d.id]));
  const queries: BenchQuery[] = [
    ...HELP_CENTRE_IN_SCOPE.map(([text, title], i) => ({ id: `in-${i}`, text, rel: { [idOf.get(title)!]: 1 }, answerable: true })),
    ...HELP_CENTRE_OFF_TOPIC.map((text, i) => ({ id: `off-${i}`, text, rel: {}, answerable: false })),
    // The second batch was on screen while the third pass was chosen: it now counts with the fitted questions.
    ...HELP_CENTRE_HELD_OUT_IN_SCOPE.map(([text, title], i) => ({ id: `held-in-${i}`, text, rel: { [idOf.get(title)!]: 1 }, answerable: true })),
    ...HELP_CENTRE_HELD_OUT_OFF_TOPIC.map((text, i) => ({ id: `held-off-${i}`, text, rel: {}, answerable: false })),
    ...HELP_CENTRE_FRESH_IN_SCOPE.map(([text, title], i) => ({ id: `fresh-in-${i}`, text, rel: { [idOf.get(title)!]: 1 }, answerable: true, group: HELD_OUT })),
    ...HELP_CENTRE_FRESH_OFF_TOPIC.map((text, i) => ({ id: `fresh-off-${i}`, text, rel: {}, answerable: false, group: HELD_OUT })),
  ];
  return { name: 'help_centre', docs, queries, subsample: '' };
}
