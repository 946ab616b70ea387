import { AppError } from '../../../domain/errors';

/**
 * One JSON POST to a model provider. Every failure becomes AppError `planner_unavailable` (502,
 * retryable) so the run can retry the step or fail with a clear error; `details` says why (timeout,
 * network, http status, malformed body) and whether a retry can help. Cancellation by the caller's signal
 * is rethrown as is.
 */
export interface PostJsonInput {
  provider: 'openai' | 'anthropic';
  url: string;
  headers: Record<string, string>;
  body: unknown;
  timeoutMs: number;
  fetch: typeof fetch;
  signal?: AbortSignal;
}

export async function postJson(input: PostJsonInput): Promise<unknown> {
  const { provider, timeoutMs } = input;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
  let status: number;
  let text: string;
  let retryAfter: string | null = null;
  try {
    const res = await input.fetch(input.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...input.headers },
      body: JSON.stringify(input.body),
      signal,
    });
    status = res.status;
    retryAfter = res.headers.get('retry-after');
    text = await res.text();
  } catch (err) {
    if (input.signal?.aborted) throw input.signal.reason ?? err;
    if (timeout.aborted) {
      throw new AppError('planner_unavailable', `The ${provider} planner did not answer within ${timeoutMs} ms`, {
        details: { provider, reason: 'timeout', retryable: true },
        cause: err,
      });
    }
    throw new AppError('planner_unavailable', `The ${provider} planner could not be reached: ${(err as Error).message}`, {
      details: { provider, reason: 'network', retryable: true },
      cause: err,
    });
  }
  if (status < 200 || status >= 300) {
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    throw new AppError('planner_unavailable', `The ${provider} planner answered HTTP ${status}: ${providerMessage(text)}`, {
      details: { provider, reason: 'http_status', status, retryable, ...(retryAfter ? { retryAfter } : {}) },
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new AppError('planner_unavailable', `The ${provider} planner answered with malformed JSON`, {
      details: { provider, reason: 'malformed_response', retryable: true },
      cause: err,
    });
  }
}

/** The provider's own error message (OpenAI and Anthropic both use {error: {message}}), shortened. */
function providerMessage(body: string): string {
  let message = body;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof m === 'string') message = m;
  } catch {
    /* not JSON: use the text */
  }
  message = message.replace(/\s+/g, ' ').trim();
  return message.length > 200 ? `${message.slice(0, 199)}…` : message || 'no body';
}

/** A malformed answer (valid JSON, wrong shape). */
export function malformed(provider: 'openai' | 'anthropic', what: string): AppError {
  return new AppError('planner_unavailable', `The ${provider} planner answered without ${what}`, {
    details: { provider, reason: 'malformed_response', retryable: true },
  });
}
