import { postSignedJson } from '../../platform/outbound-http';
import type { SigningSecrets } from '../../domain/signature';

/** What an api source answers to a query: passages with a title and content (an array or `{results}`). */
export interface ApiSourceDocument {
  title: string;
  content: string;
  url: string | null;
}

export interface ApiSourceRequest {
  url: string;
  /** The account's signing secret(s) (Service-Signature, same scheme as webhooks; two during a rotation). */
  secret: SigningSecrets;
  knowledgeBaseId: string;
  sourceId: string;
  query: string;
  topK: number;
  timeoutMs: number;
  allowPrivate: boolean;
  /** A sync's reachability check: the endpoint only has to answer 2xx. */
  probe?: boolean;
}

export class ApiSourceError extends Error {
  override readonly name = 'ApiSourceError';
}

/**
 * The one signed POST to a caller's api source, `{query, top_k, knowledge_base_id, source_id[, probe]}`.
 * Throws ApiSourceError when it does not answer, answers non-2xx, or (for a query) answers no results
 * array; returns at most `maxResults` documents with content.
 */
export async function queryApiSource(req: ApiSourceRequest, maxResults = 50): Promise<ApiSourceDocument[]> {
  const body = JSON.stringify({
    query: req.query,
    top_k: req.topK,
    knowledge_base_id: req.knowledgeBaseId,
    source_id: req.sourceId,
    ...(req.probe ? { probe: true } : {}),
  });
  let res;
  try {
    res = await postSignedJson({ url: req.url, secret: req.secret, body, timeoutMs: req.timeoutMs, allowPrivate: req.allowPrivate });
  } catch (err) {
    throw new ApiSourceError(`the api source did not answer: ${(err as Error).message}`);
  }
  if (res.status < 200 || res.status >= 300) throw new ApiSourceError(`the api source answered HTTP ${res.status}`);
  if (req.probe) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.body);
  } catch {
    throw new ApiSourceError('the api source answered something that is not JSON');
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { results?: unknown })?.results;
  if (!Array.isArray(list)) throw new ApiSourceError('the answer has no results array');
  const docs: ApiSourceDocument[] = [];
  for (const item of list.slice(0, maxResults) as Record<string, unknown>[]) {
    const content = String(item?.content ?? item?.snippet ?? item?.text ?? '').trim();
    if (!content) continue;
    docs.push({ title: String(item.title ?? '').trim() || 'Untitled', content, url: typeof item.url === 'string' ? item.url : null });
  }
  return docs;
}
