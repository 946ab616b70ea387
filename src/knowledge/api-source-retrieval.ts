import type { Kysely } from 'kysely';
import type { AccountsService } from '../accounts/accounts.service';
import type { DB } from '../db/schema';
import type { Logger } from '../observability/logger';
import { queryApiSource } from './index/api-source.client';
import type { LexicalIndexRepo, ScopeSource } from './index/lexical-index.repo';
import { bm25Term, calibrate, idf, makeSnippet } from './index/scoring';

/** What answering from api sources needs of KnowledgeRetrievalService. */
export interface ApiSourceDeps {
  db: Kysely<DB>;
  accounts: Pick<AccountsService, 'getSigningSecret'>;
  index: LexicalIndexRepo;
  allowPrivateNetwork: boolean;
  apiTimeoutMs: number;
  /** Passages read from one source's answer at most. */
  maxPerSource: number;
  log?: Logger;
}

/** A passage an api source answered, scored like an indexed one (a RetrievedPassage with origin `api`). */
export interface ApiSourcePassage {
  sourceId: string;
  knowledgeBaseId: string;
  title: string;
  heading: null;
  snippet: string;
  content: string;
  url: string | null;
  score: number;
  origin: 'api';
  metadata: Record<string, string>;
}

/**
 * Asks each api source for passages (signed POST `{query, top_k, knowledge_base_id, source_id}`, with
 * the source's timeout), then scores what they return with the same BM25 against the base's statistics.
 * A source that fails or times out is skipped and reported.
 */
export async function queryApiSources(deps: ApiSourceDeps, input: { accountId: string; query: string }, apis: ScopeSource[], topK: number, indexed: ScopeSource[], n: number, avgLen: number) {
  // Each source is signed with its own mode's secret (a base, and so its sources, belongs to one mode).
  const secrets = new Map<boolean, Promise<string[]>>();
  const secretOf = (livemode: boolean) => {
    if (!secrets.has(livemode)) secrets.set(livemode, deps.accounts.getSigningSecret({ accountId: input.accountId, livemode }));
    return secrets.get(livemode)!;
  };
  const failures: { sourceId: string; error: string }[] = [];
  const docs: { source: ScopeSource; title: string; content: string; url: string | null }[] = [];
  await Promise.all(
    apis.map(async (source) => {
      try {
        const found = await queryApiSource({
          url: source.url!,
          secret: await secretOf(source.livemode),
          knowledgeBaseId: source.knowledge_base_id,
          sourceId: source.id,
          query: input.query,
          topK,
          timeoutMs: source.timeout_ms ?? deps.apiTimeoutMs,
          allowPrivate: deps.allowPrivateNetwork,
        }, deps.maxPerSource);
        for (const d of found) docs.push({ source, ...d });
      } catch (err) {
        failures.push({ sourceId: source.id, error: (err as Error).message });
        deps.log?.warn({ sourceId: source.id, err: (err as Error).message }, 'Api knowledge source failed');
      }
    }),
  );
  if (docs.length === 0) return { results: [] as ApiSourcePassage[], failures };

  const texts = docs.map((d) => `${d.title} ${d.content}`);
  const [tokens, weights] = await Promise.all([
    deps.index.tokenizeTexts(deps.db, texts),
    deps.index.queryTermStats(deps.db, { query: input.query, sources: indexed.map((s) => ({ id: s.id, version: s.active_version ?? 0 })) }),
  ]);
  const perDoc = docs.map(() => new Map<string, number>());
  for (const t of tokens) perDoc[t.i - 1]!.set(t.term, t.tf);
  const lens = perDoc.map((m) => [...m.values()].reduce((a, b) => a + b, 0));
  // The api results join the collection for idf and length normalisation.
  const total = n + docs.length;
  const avg = n > 0 ? avgLen : Math.max(1, lens.reduce((a, b) => a + b, 0) / docs.length);
  const w = weights.map((q) => {
    const df = q.df + perDoc.filter((m) => m.has(q.term)).length;
    return { term: q.term, weight: q.qtf * idf(total, df) };
  });
  const sumIdf = w.reduce((a, x) => a + x.weight, 0);
  const results: ApiSourcePassage[] = docs.map((d, i) => {
    const bm25 = w.reduce((acc, x) => {
      const tf = perDoc[i]!.get(x.term);
      return tf ? acc + bm25Term(x.weight, tf, lens[i]!, avg) : acc;
    }, 0);
    return {
      sourceId: d.source.id,
      knowledgeBaseId: d.source.knowledge_base_id,
      title: d.title,
      heading: null,
      snippet: makeSnippet(d.content, input.query),
      content: d.content,
      url: d.url,
      score: calibrate(bm25, sumIdf),
      origin: 'api',
      metadata: d.source.metadata,
    };
  });
  return { results, failures };
}
