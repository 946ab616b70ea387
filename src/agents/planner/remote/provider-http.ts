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
    throw transportError(input, timeout, err);
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

/** A failed or timed-out request as planner_unavailable (the caller's own cancellation is rethrown as is). */
function transportError(input: PostJsonInput, timeout: AbortSignal, err: unknown): unknown {
  const { provider, timeoutMs } = input;
  if (input.signal?.aborted) return input.signal.reason ?? err;
  if (timeout.aborted) {
    return new AppError('planner_unavailable', `The ${provider} planner did not answer within ${timeoutMs} ms`, {
      details: { provider, reason: 'timeout', retryable: true },
      cause: err,
    });
  }
  return new AppError('planner_unavailable', `The ${provider} planner could not be reached: ${(err as Error).message}`, {
    details: { provider, reason: 'network', retryable: true },
    cause: err,
  });
}

/** The largest server-sent event a provider may send (a line longer than this is malformed). */
const MAX_EVENT_BYTES = 1 << 20;

/**
 * One streaming POST (`stream: true` in the body): yields the `data` of each server-sent event as it
 * arrives (OpenAI's `chat.completion.chunk`s up to `[DONE]`, Anthropic's typed events). Failures are
 * planner_unavailable as in postJson; the timeout covers the whole answer. The framing (lines, `data:`
 * fields, blank line between events) is parsed here: twenty lines of the SSE specification, not worth a
 * dependency.
 */
export async function* postStream(input: PostJsonInput): AsyncGenerator<string> {
  const { provider } = input;
  const timeout = AbortSignal.timeout(input.timeoutMs);
  const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await input.fetch(input.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...input.headers },
      body: JSON.stringify(input.body),
      signal,
    });
  } catch (err) {
    throw transportError(input, timeout, err);
  }
  if (res.status < 200 || res.status >= 300 || !res.body) {
    const text = await res.text().catch(() => '');
    const retryable = res.status === 408 || res.status === 409 || res.status === 429 || res.status >= 500;
    const retryAfter = res.headers.get('retry-after');
    throw new AppError('planner_unavailable', `The ${provider} planner answered HTTP ${res.status}: ${providerMessage(text)}`, {
      details: { provider, reason: 'http_status', status: res.status, retryable, ...(retryAfter ? { retryAfter } : {}) },
    });
  }
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      // Lines are read by index and the buffer cut once per chunk: a chunk of many short lines stays linear.
      let at = 0;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n', at)) {
        const line = buffer.slice(at, nl).replace(/\r$/, '');
        at = nl + 1;
        if (line === '') {
          if (data.length) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      buffer = buffer.slice(at);
      if (buffer.length > MAX_EVENT_BYTES || data.reduce((n, d) => n + d.length, 0) > MAX_EVENT_BYTES) throw malformed(provider, 'events of a reasonable size');
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw transportError(input, timeout, err);
  }
  if (data.length) yield data.join('\n');
}

/** A streamed event's JSON; a malformed one is planner_unavailable (retryable). */
export function parseStreamEvent(provider: 'openai' | 'anthropic', data: string): Record<string, any> {
  try {
    const parsed = JSON.parse(data) as unknown;
    if (parsed && typeof parsed === 'object') return parsed as Record<string, any>;
  } catch {
    /* below */
  }
  throw new AppError('planner_unavailable', `The ${provider} planner streamed malformed JSON`, { details: { provider, reason: 'malformed_response', retryable: true } });
}
