import type { AgentConfig } from '../agents/agent.schemas';
import type { KnowledgeRetrievalService, RetrievalMode, RetrieveResult } from '../knowledge/knowledge-retrieval.service';
import type { MetadataFilter } from '../knowledge/metadata-filter';
import type { CitationPagesService } from '../knowledge/citation-pages.service';
import type { RunRow } from './run.repo';
import type { RunStepContext } from './run.repo';
import type { StoredRetrievalItem } from './run.schemas';
import { followUpQuestion } from '../agents/planner/port';

/** Passages a run retrieves for its planner. */
const RETRIEVE_TOP_K = 5;
/**
 * Channels whose retrieval runs against the whole thread (SPEC: "in email, retrieval is run against the
 * whole thread"): the customer message is searched, and so are the thread's customer turns together
 * (at most THREAD_QUERY_CHARS, latest first); a passage found by both keeps its better score.
 */
const THREAD_RETRIEVAL_CHANNELS: ReadonlySet<string> = new Set(['email']);
const THREAD_QUERY_CHARS = 2000;

/**
 * The run's passages from the agent's knowledge bases (their filters, and the customer's locale where
 * asked), best first, at most RETRIEVE_TOP_K, and how they were retrieved (a question that could not be
 * embedded is `lexical_fallback`). A locale filter that leaves no passage for the customer's locale falls
 * back to the agent's other locales unless the agent sets `locale_fallback: false` (the planner then
 * answers in the passage's language with a one-line note). Not yet redacted: the run step redacts what it
 * stores.
 */
export async function retrieveRunPassages(
  knowledgeRetrieval: KnowledgeRetrievalService,
  ctx: Pick<RunStepContext, 'run' | 'message' | 'conversation' | 'transcript'> & { config: AgentConfig },
): Promise<{ items: StoredRetrievalItem[]; mode: RetrievalMode }> {
  const { config, conversation } = ctx;
  const locale = (conversation.customer as { locale?: string }).locale;
  const localeFilter = config.locale_filter_key && locale ? { [config.locale_filter_key]: locale as string | { in: string[] } } : undefined;
  const first = await searchRunPassages(knowledgeRetrieval, ctx, localeFilter);
  const others = config.locales.filter((l) => l !== locale);
  if (first.items.length > 0 || !localeFilter || config.locale_fallback === false || others.length === 0) return first;
  return searchRunPassages(knowledgeRetrieval, ctx, { [config.locale_filter_key!]: { in: others } });
}

async function searchRunPassages(
  knowledgeRetrieval: KnowledgeRetrievalService,
  { run, message, transcript, config }: Pick<RunStepContext, 'run' | 'message' | 'conversation' | 'transcript'> & { config: AgentConfig },
  localeFilter: MetadataFilter | undefined,
): Promise<{ items: StoredRetrievalItem[]; mode: RetrievalMode }> {
  // Bases with the same filter are searched together; results merge by calibrated score.
  const groups = new Map<string, { ids: string[]; filter?: MetadataFilter }>();
  for (const kb of config.knowledge_bases) {
    const filter: MetadataFilter | undefined = localeFilter ? { ...kb.filter, ...localeFilter } : kb.filter;
    const key = JSON.stringify(filter ?? null);
    const group = groups.get(key) ?? { ids: [], filter };
    group.ids.push(kb.id);
    groups.set(key, group);
  }
  // A follow-up ("and on Sundays?") is searched together with the previous customer message, as the
  // planner reads it.
  const previous = (transcript ?? []).filter((t) => t.role === 'customer').at(-1)?.content;
  const queries = [followUpQuestion(message.content, previous)];
  if (THREAD_RETRIEVAL_CHANNELS.has(run.channel)) {
    const thread = threadQuery(message.content, transcript ?? []);
    if (thread) queries.push(thread);
  }
  const found = await Promise.all(
    [...groups.values()].flatMap((g) =>
      queries.map((query) =>
        knowledgeRetrieval
          .retrieve({ accountId: run.account_id, knowledgeBaseIds: g.ids, query, topK: RETRIEVE_TOP_K, filter: g.filter })
          .catch((err: { code?: string }): RetrieveResult => {
            if (err.code === 'source_indexing') return { results: [], apiFailures: [], mode: knowledgeRetrieval.mode };
            throw err;
          }),
      ),
    ),
  );
  // The same passage found by several queries counts once, with its best score.
  const best = new Map<string, (typeof found)[number]['results'][number]>();
  for (const p of found.flatMap((r) => r.results)) {
    const key = `${p.sourceId}\u0000${p.content}`;
    if ((best.get(key)?.score ?? -1) < p.score) best.set(key, p);
  }
  const items = [...best.values()]
    .sort((a, b) => b.score - a.score)
    .slice(0, RETRIEVE_TOP_K)
    .map((p) => ({
      source: p.knowledgeBaseId, source_id: p.sourceId, title: p.title, snippet: p.snippet, url: p.url, score: round(p.score), cited: false, content: p.content, section: p.heading,
      ...(p.sentenceCosines ? { sentence_cosines: p.sentenceCosines } : {}),
    }));
  // One query that could not be embedded makes the run's retrieval a fallback.
  const modes = new Set(found.map((r) => r.mode));
  const mode: RetrievalMode = modes.has('lexical_fallback') ? 'lexical_fallback' : modes.has('hybrid') ? 'hybrid' : modes.has('lexical') ? 'lexical' : knowledgeRetrieval.mode;
  return { items, mode };
}

/**
 * The retrieval with a link on each cited passage that has no url of its own (an uploaded document, a
 * record): its citation page, so the run shows it and a reply can carry it. Idempotent (the same
 * citation gets the same page).
 */
export async function linkCitedPassages(
  citationPages: Pick<CitationPagesService, 'linkPassages'>,
  run: Pick<RunRow, 'id' | 'account_id' | 'livemode'>,
  retrieval: StoredRetrievalItem[],
  citations: number[],
): Promise<StoredRetrievalItem[]> {
  const toLink = retrieval.flatMap((item, i) =>
    !item.url && item.source_id && citations.includes(i + 1) ? [{ index: i, sourceId: item.source_id, item }] : [],
  );
  if (toLink.length === 0) return retrieval;
  const urls = await citationPages.linkPassages({
    accountId: run.account_id, livemode: run.livemode, runId: run.id,
    passages: toLink.map(({ sourceId, item }) => ({ sourceId, title: item.title, section: item.section ?? null, content: item.content })),
  });
  const linked = [...retrieval];
  toLink.forEach(({ index, item }, k) => {
    const url = urls[k];
    if (url) linked[index] = { ...item, url };
  });
  return linked;
}

/** The thread's customer turns before the message and the message, latest first, capped; undefined when it has no earlier turn. */
function threadQuery(message: string, transcript: { role: string; content: string }[]): string | undefined {
  const earlier = transcript.filter((t) => t.role === 'customer').map((t) => t.content);
  if (earlier.length === 0) return undefined;
  let query = message;
  for (const turn of earlier.reverse()) {
    if (query.length + turn.length + 1 > THREAD_QUERY_CHARS) break;
    query = `${query}\n${turn}`;
  }
  return query === message ? undefined : query;
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;
