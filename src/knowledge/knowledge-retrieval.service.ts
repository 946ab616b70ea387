import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { LexicalIndexRepo, type ScopeSource } from './index/lexical-index.repo';
import { AppError } from '../domain/errors';
import { DEFAULT_FUSION, POSTINGS_BUDGET, dot, fuseScores, lexicalScores, lexicalX, makeSnippet, type FusionModel } from './index/scoring';
import type { EmbeddingsPort } from './index/embeddings.client';
import { decodeVector, encodeVector, VectorIndexRepo } from './index/vector-index.repo';
import type { LexicalHit, PassageFilter } from './index/lexical-index.repo';
import type { Logger } from '../observability/logger';
import type { AccountsService } from '../accounts/accounts.service';
import { queryApiSources } from './api-source-retrieval';
import { matchesAllowed, normalizeFilter, type MetadataFilter } from './metadata-filter';
import { addSentenceCosines } from './sentence-cosines';
import { inOtherLanguage } from '../platform/text';


export interface RetrieveInput {
  accountId: string;
  knowledgeBaseIds: string[];
  query: string;
  /** Passages to return; default 5, at most 100 (the API caps it at 50). */
  topK?: number;
  /** Only sources whose metadata matches. */
  filter?: MetadataFilter;
  /** Drops passages whose calibrated score is below this (0 to 1). */
  minScore?: number;
  /**
   * Evaluation only (benchmarks): one side alone. The default is hybrid when embeddings are on and the
   * scope has vectors, lexical otherwise.
   */
  strategy?: 'hybrid' | 'lexical' | 'semantic';
  /** Evaluation only (the calibration bench): also return every hybrid candidate with its raw features. */
  explain?: boolean;
}

/** A hybrid candidate as the fusion saw it (evaluation only). */
export interface ExplainedCandidate {
  sourceId: string;
  ordinal: number;
  url: string | null;
  /** Normalised BM25 (lexicalX) and cosine; which side proposed it. */
  x: number;
  cos: number;
  /** Cosine of the query with the passage's best sentence (null: one sentence, not computed, or beyond SENTENCE_DEPTH). */
  sentCos: number | null;
  /** The passage is in another language than the question (the fusion's `other_language`). */
  otherLanguage: boolean;
  lexical: boolean;
  dense: boolean;
  score: number;
}

export interface RetrievedPassage {
  sourceId: string;
  knowledgeBaseId: string;
  title: string;
  heading: string | null;
  snippet: string;
  /** The whole passage, for grounding a reply. */
  content: string;
  url: string | null;
  /** Calibrated relevance in [0, 1]. */
  score: number;
  /**
   * The query's cosine with each of the passage's stored sentence vectors (sentenceEmbeddingTexts order),
   * when hybrid retrieval read them: what the local planner quotes by. Absent otherwise.
   */
  sentenceCosines?: number[];
  origin: 'index' | 'api';
  metadata: Record<string, string>;
}

/**
 * How the indexed sources were searched: `hybrid` (BM25 and vectors), `lexical` (embeddings off, or no
 * vector in scope yet), `lexical_fallback` (embeddings on, but the question's embedding failed or timed out:
 * the scores are the lexical calibration's, `LEXICAL_MODEL`).
 */
export type RetrievalMode = 'hybrid' | 'lexical' | 'lexical_fallback';

export interface RetrieveResult {
  results: RetrievedPassage[];
  mode: RetrievalMode;
  /** Api sources that did not answer in time or answered badly; their results are missing. */
  apiFailures: { sourceId: string; error: string }[];
  /** With `explain`: the hybrid candidates of the indexed sources, best first. */
  candidates?: ExplainedCandidate[];
  /** With `explain`: the passages in scope (the fusion's `small_base` reads it). */
  scopePassages?: number;
}

export const TOP_K_DEFAULT = 5;
export const TOP_K_MAX = 50;
/** Internal callers (agents, evaluation) may ask for more candidates than the API allows. */
export const RETRIEVE_MAX = 100;
/** Candidates each side proposes to the fusion (at least; more when topK is larger). */
export const HYBRID_CANDIDATES = 50;
/** Hits the lexical-only score reads each one against (its background: hits 2–10). */
export const LEXICAL_CONTEXT = 10;
/**
 * Default of EMBEDDINGS_SCAN_MAX: the dense side scans the scope's vectors exactly (sign-bit Hamming scan,
 * then exact cosine of the nearest) when the scope holds at most this many embedded passages; above it,
 * the vectors only re-score the lexical candidates. The scan costs about 2 ms per 1,000 vectors here.
 */
export const DENSE_SCAN_MAX = 30_000;
/** Passages the Hamming scan proposes for exact re-scoring, per dense candidate wanted. */
export const DENSE_OVERSAMPLE = 4;

/**
 * Retrieval over one or more knowledge bases, computed in PostgreSQL: BM25 over the posting lists of
 * the live versions of the sources in scope, api sources queried live and scored on the same scale,
 * then a calibrated score in [0, 1]. The direct query endpoint and agent runs both call `retrieve`.
 */
export class KnowledgeRetrievalService {
  private readonly index = new LexicalIndexRepo();
  private readonly vectors = new VectorIndexRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      accounts: AccountsService;
      allowPrivateNetwork: boolean;
      apiTimeoutMs: number;
      /** Semantic side; absent (EMBEDDINGS=off) retrieval is lexical. */
      embeddings?: EmbeddingsPort;
      /** The fused score's weights for this model (default: the fit for multilingual-e5-small). */
      fusion?: FusionModel;
      /** Largest scope (embedded passages) the dense side scans exactly (default DENSE_SCAN_MAX). */
      denseScanMax?: number;
      /** Read sentence vectors for the best-sentence cosine (EMBEDDINGS_SENTENCES; default true). */
      sentences?: boolean;
      log?: Logger;
    },
  ) {}

  /** `hybrid` when an embeddings endpoint is configured, else `lexical` (logged at start, shown by /readyz callers). */
  get mode(): 'hybrid' | 'lexical' {
    return this.deps.embeddings ? 'hybrid' : 'lexical';
  }

  private warm: Promise<void> | undefined;
  private warmed = false;

  /**
   * Embeds one question so the query model is loaded and answering before the first customer's question
   * (a cold model misses the query timeout and the question would be answered lexically). Resolves once
   * a question was embedded within the query timeout; rejects when none was after `attempts` tries (the
   * readiness check calls it again). Resolves at once when embeddings are off or it is warm already.
   */
  async warmUp(opts: { attempts?: number } = {}): Promise<void> {
    const { embeddings } = this.deps;
    if (!embeddings || this.warmed) return;
    this.warm ??= (async () => {
      let last: unknown;
      for (let i = 0; i < (opts.attempts ?? 1); i++) {
        try {
          await embeddings.embed({ texts: ['How long does shipping take?'], kind: 'query' });
          this.warmed = true;
          return;
        } catch (err) {
          last = err;
        }
      }
      throw new AppError('upstream_unavailable', `The embedding model is not answering yet: ${(last as Error)?.message ?? 'unknown error'}`);
    })().finally(() => (this.warm = undefined));
    return this.warm;
  }

  /** Whether warmUp has embedded a question (the readiness check reads it). */
  get isWarm(): boolean {
    return !this.deps.embeddings || this.warmed;
  }

  async retrieve(input: RetrieveInput): Promise<RetrieveResult> {
    const { db } = this.deps;
    const topK = Math.min(Math.max(1, input.topK ?? TOP_K_DEFAULT), RETRIEVE_MAX);
    const minScore = input.minScore ?? 0;
    if (input.knowledgeBaseIds.length === 0) return { results: [], apiFailures: [], mode: this.mode };

    const all = await this.index.listScopeSources(db, { accountId: input.accountId, knowledgeBaseIds: input.knowledgeBaseIds });
    const live = all.filter((s) => s.active_version !== null);
    if (live.length === 0 && all.some((s) => s.status === 'indexing')) {
      throw new AppError('source_indexing', 'The knowledge base has no ready source yet: its sources are still indexing. Retry when knowledge.source.ready arrives.');
    }
    // A record source may hold records whose own metadata matches where the source's does not: its
    // passages are checked one by one in SQL; other sources match or not as a whole.
    const filter = normalizeFilter(input.filter);
    const scope = live.filter((s) => (filter && s.type === 'record') || matchesAllowed(s.metadata, filter));
    const passageFilter: PassageFilter | undefined = filter && { sourceIds: scope.filter((s) => s.type === 'record').map((s) => s.id), filter };
    const indexed = scope.filter((s) => s.type !== 'api' && s.passage_count > 0);
    const apis = scope.filter((s) => s.type === 'api');
    const n = indexed.reduce((a, s) => a + s.passage_count, 0);
    const avgLen = n > 0 ? Math.max(1, indexed.reduce((a, s) => a + s.total_length, 0) / n) : 1;

    const explained: ExplainedCandidate[] | undefined = input.explain ? [] : undefined;
    const [searched, external] = await Promise.all([
      indexed.length ? this.searchIndex(input, indexed, n, topK, passageFilter, explained) : Promise.resolve({ passages: [], mode: this.mode }),
      apis.length ? queryApiSources({ ...this.deps, index: this.index, maxPerSource: TOP_K_MAX }, input, apis, topK, indexed, n, avgLen) : Promise.resolve({ results: [], failures: [] }),
    ]);
    const results = [...searched.passages, ...external.results]
      .filter((r) => r.score > 0 && r.score >= minScore)
      .sort((a, b) => b.score - a.score)
      .slice(0, topK);
    return { results, apiFailures: external.failures, mode: searched.mode, ...(explained ? { candidates: explained, scopePassages: n } : {}) };
  }

  /**
   * The indexed sources: BM25 over their posting lists (LexicalIndexRepo.searchPostings) and, when
   * embeddings are on and the scope has vectors, the dense side: the query's vector re-scores the lexical
   * candidates and proposes its own (exact scan of the scope's vectors up to DENSE_SCAN_MAX passages);
   * the union is ranked by the fused, calibrated score. Passages not embedded yet keep their lexical score,
   * and an embeddings endpoint that fails leaves the query lexical (logged).
   */
  private async searchIndex(
    input: RetrieveInput, scope: ScopeSource[], n: number, topK: number, passageFilter?: PassageFilter, explained?: ExplainedCandidate[],
  ): Promise<{ passages: RetrievedPassage[]; mode: RetrievalMode }> {
    const { db, embeddings } = this.deps;
    const sources = new Map(scope.map((s) => [s.id, s]));
    const toPassage = (r: Parameters<KnowledgeRetrievalService['toPassage']>[0], score: number) =>
      this.toPassage(r, input.query, score, sources.get(r.source_id)?.metadata ?? {});
    const strategy = input.strategy ?? 'hybrid';
    const embedded = scope.filter((s) => s.embedded_passages > 0);
    if (!embeddings || strategy === 'lexical' || embedded.length === 0) {
      if (strategy === 'semantic') return { passages: [], mode: 'hybrid' };
      const rows = await this.index.searchPostings(db, { query: input.query, scope, n, topK: Math.max(topK, LEXICAL_CONTEXT), budget: POSTINGS_BUDGET, passageFilter });
      const scores = lexicalScores(rows.map((r) => lexicalX(r.s, r.sum_idf)));
      return { passages: rows.slice(0, topK).map((r, i) => toPassage(r, scores[i]!)), mode: 'lexical' };
    }

    const started = performance.now();
    const want = Math.max(topK, HYBRID_CANDIDATES);
    const scanned = embedded.reduce((a, s) => a + s.embedded_passages, 0);
    const scan = scanned <= (this.deps.denseScanMax ?? DENSE_SCAN_MAX);
    const ms = {} as Record<'embed' | 'lexical' | 'scan' | 'bm25' | 'sentences', number>;
    const lap = (k: keyof typeof ms) => (ms[k] = Math.round(performance.now() - started));
    const queryVector = embeddings.embed({ texts: [input.query], kind: 'query' }).then((v) => (lap('embed'), v[0]!));
    const lexical =
      strategy === 'semantic'
        ? Promise.resolve([] as LexicalHit[])
        : this.index.searchPostings(db, { query: input.query, scope, n, topK: want, budget: POSTINGS_BUDGET, passageFilter }).then((r) => (lap('lexical'), r));
    const lexicalVectors = lexical.then((hits) =>
      this.vectors.getVectors(db, { model: embeddings.model, keys: hits.filter((h) => h.content_hash).map((h) => ({ sourceId: h.source_id, contentHash: h.content_hash! })) }),
    );
    // Dense candidates: nearest by sign bits, re-scored by exact cosine, then given their real BM25 (the
    // lexical side only proposed its own top) so both features of the fusion are real for every candidate.
    const dense = queryVector.then(async (q) => {
      if (!scan) return [];
      const hits = await this.vectors.scanNearest(db, {
        model: embeddings.model,
        scope: embedded.map((s) => ({ id: s.id, version: s.active_version! })),
        bits: encodeVector(q).bits,
        limit: want * DENSE_OVERSAMPLE,
        passageFilter,
      });
      lap('scan');
      const top = hits.map((d) => ({ d, cos: dot(q, decodeVector(d.vec)) })).sort((a, b) => b.cos - a.cos).slice(0, want);
      if (strategy === 'semantic') return top.map((t) => ({ ...t, x: 0 }));
      const bm25 = await this.index.scorePassages(db, { query: input.query, scope, n, keys: top.map(({ d }) => ({ sourceId: d.source_id, ordinal: d.ordinal })) });
      lap('bm25');
      const xOf = new Map(bm25.map((r) => [`${r.source_id}:${r.ordinal}`, lexicalX(r.s, r.sum_idf)]));
      return top.map((t) => ({ ...t, x: xOf.get(`${t.d.source_id}:${t.d.ordinal}`) ?? 0 }));
    });
    const [q, lex, lexVecs, den] = await Promise.allSettled([queryVector, lexical, lexicalVectors, dense]);
    if (lex.status === 'rejected') throw lex.reason;
    if (q.status === 'rejected' || lexVecs.status === 'rejected' || den.status === 'rejected') {
      const err = [q, lexVecs, den].find((r) => r.status === 'rejected') as PromiseRejectedResult;
      this.deps.log?.warn({ err: (err.reason as Error).message }, 'Dense retrieval failed; answering lexically');
      if (strategy === 'semantic') return { passages: [], mode: 'lexical_fallback' };
      const scores = lexicalScores(lex.value.map((r) => lexicalX(r.s, r.sum_idf)));
      return { passages: lex.value.slice(0, topK).map((r, i) => toPassage(r, scores[i]!)), mode: 'lexical_fallback' };
    }

    const qv = q.value;
    const cosOf = new Map(lexVecs.value.map((r) => [`${r.source_id}:${r.content_hash.toString('hex')}`, dot(qv, decodeVector(r.vec))]));
    type Candidate = {
      sourceId: string; ordinal: number; contentHash?: Buffer; x: number; cos?: number; sentCos?: number; sentenceCosines?: number[];
      otherLanguage?: boolean; lexical: boolean; dense: boolean; score: number; hit?: LexicalHit;
    };
    const candidates = new Map<string, Candidate>();
    const lexScores = lexicalScores(lex.value.map((h) => lexicalX(h.s, h.sum_idf)));
    for (const [i, h] of lex.value.entries()) {
      const cos = h.content_hash ? cosOf.get(`${h.source_id}:${h.content_hash.toString('hex')}`) : undefined;
      // A passage not embedded yet keeps its lexical score.
      const score = cos === undefined ? lexScores[i]! : 0;
      candidates.set(`${h.source_id}:${h.ordinal}`, {
        sourceId: h.source_id, ordinal: h.ordinal, contentHash: h.content_hash ?? undefined, x: lexicalX(h.s, h.sum_idf), cos, lexical: true, dense: false, score, hit: h,
      });
    }
    const denseTop = den.value;
    for (const { d, cos, x } of denseTop) {
      const key = `${d.source_id}:${d.ordinal}`;
      const known = candidates.get(key);
      if (known) known.dense = true;
      else candidates.set(key, { sourceId: d.source_id, ordinal: d.ordinal, contentHash: d.content_hash, x, cos, lexical: false, dense: true, score: 0 });
    }
    // The passages only the dense side proposed: their text (the fusion reads each one's language).
    const versionOf = new Map(scope.map((s) => [s.id, s.active_version!]));
    const [fetched] = await Promise.all([
      this.index.getPassages(db, [...candidates.values()].filter((c) => !c.hit).map((c) => ({ sourceId: c.sourceId, version: versionOf.get(c.sourceId)!, ordinal: c.ordinal }))),
      (this.deps.sentences ?? true)
        ? addSentenceCosines({ db, vectors: this.vectors, log: this.deps.log }, qv, [...candidates.values()].filter((c): c is Candidate & { cos: number } => c.cos !== undefined), embeddings.model).then(() => lap('sentences'))
        : undefined,
    ]);
    const byKey = new Map(fetched.map((p) => [`${p.source_id}:${p.ordinal}`, p]));
    const contentOf = (c: Candidate) => (c.hit ?? byKey.get(`${c.sourceId}:${c.ordinal}`))?.content ?? '';
    // The fused score reads each candidate against the others (its margin over the next best), so it is
    // computed over the whole candidate set at once.
    const fused = [...candidates.values()]
      .filter((c): c is Candidate & { cos: number } => c.cos !== undefined)
      .map((c) => Object.assign(c, { otherLanguage: inOtherLanguage(input.query, contentOf(c)) }));
    const scores = fuseScores(fused, this.deps.fusion ?? DEFAULT_FUSION, { passages: n });
    fused.forEach((c, i) => (c.score = scores[i]!));
    const ranked = [...candidates.values()].sort((a, b) => b.score - a.score);
    const top = ranked.slice(0, topK);
    explained?.push(
      ...ranked.map((c) => ({
        sourceId: c.sourceId, ordinal: c.ordinal, url: (c.hit ?? byKey.get(`${c.sourceId}:${c.ordinal}`))?.url ?? null,
        x: c.x, cos: c.cos ?? Number.NaN, sentCos: c.sentCos ?? null, otherLanguage: c.otherLanguage ?? false, lexical: c.lexical, dense: c.dense, score: c.score,
      })),
    );
    this.deps.log?.debug(
      { strategy, dense: scan ? 'scan' : 'rescore', lexical: lex.value.length, denseCandidates: denseTop.length, ms: Math.round(performance.now() - started), at: ms },
      'Hybrid retrieval',
    );
    const passages = top.flatMap((c) => {
      const row = c.hit ?? byKey.get(`${c.sourceId}:${c.ordinal}`);
      if (!row) return [];
      const passage = toPassage({ ...row, source_id: c.sourceId }, c.score);
      return [c.sentenceCosines ? { ...passage, sentenceCosines: c.sentenceCosines.map((x) => Math.round(x * 10_000) / 10_000) } : passage];
    });
    return { passages, mode: 'hybrid' };
  }

  /** A passage as returned; its metadata is the source's current metadata overlaid with its record's own. */
  private toPassage(
    r: {
      source_id: string; knowledge_base_id: string; title: string; heading: string | null; url: string | null; content: string;
      metadata: Record<string, string>; own_metadata?: Record<string, string>;
    },
    query: string,
    score: number,
    sourceMetadata: Record<string, string>,
  ): RetrievedPassage {
    return {
      sourceId: r.source_id,
      knowledgeBaseId: r.knowledge_base_id,
      title: r.title,
      heading: r.heading,
      snippet: makeSnippet(r.content, query),
      content: r.content,
      url: r.url,
      score,
      origin: 'index',
      metadata: { ...r.metadata, ...sourceMetadata, ...(r.own_metadata ?? {}) },
    };
  }
}
