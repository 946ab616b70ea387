import { createHash } from 'node:crypto';
import { AppError } from '../../domain/errors';
import type { SigningSecrets } from '../../domain/signature';
import { assertOutboundUrl, OutboundNetworkError, postSignedJson, type OutboundResponse } from '../../platform/outbound-http';

/**
 * The tool endpoint contract (SPEC "Tool endpoint contract", "Authentication" 5): one signed POST of
 * `{tool, arguments, conversation_id, run_id}` to the tool's endpoint, its answer classified into an
 * outcome the run acts on. Never throws for anything the endpoint does; only programming errors escape.
 *
 * - 200 with a JSON body → `ok` with the body as `result`, unless the body carries a top-level
 *   `error: {code, message}` → `error` with that code and message. Other 2xx with JSON are `ok` too; 204
 *   (no body) is `ok` with a null result.
 * - 202 → `pending` (SPEC says the body is `{status: "pending"}`; any 202 without an `error` is taken as
 *   accepted, as the status alone says so).
 * - Any other status (3xx included: redirects are not followed) → `error` `http_<status>`, with the body's
 *   `error.message` when it has one.
 * - A 2xx whose body is not JSON → `invalid_response`; a body over 256 kB → `response_too_large`.
 * - No complete answer within `timeoutMs` → `timed_out` (never retried: the tool may have acted).
 * - Connection refused, reset or dropped mid-response → retried once when the tool is `idempotent`
 *   (within what is left of `timeoutMs`), else `network_error`; a non-idempotent call is never resent.
 * - An endpoint the outbound policy refuses (private address, http in live mode) → `endpoint_not_allowed`
 *   without a request; an unparsable one → `invalid_endpoint`.
 *
 * Every request carries `Idempotency-Key: <run_id>:<idempotencyKey>`, the same on the retry, so a tool
 * can deduplicate (SPEC: "handlers should be idempotent using run_id").
 */

export interface CallToolEndpointInput {
  endpoint: string;
  tool: string;
  arguments: Record<string, unknown>;
  conversationId: string;
  runId: string;
  /** The account's tool signing secret (whsec_…); the current and previous ones during a rotation. */
  signingSecret: SigningSecrets;
  timeoutMs: number;
  /** Whether the tool declared itself idempotent: a network error is then retried once. */
  idempotent: boolean;
  allowPrivate: boolean;
  requireHttps: boolean;
  /**
   * The per-call part of the Idempotency-Key (the call's sequence in the run or its call_… id). Default: a
   * digest of the tool name and arguments, so the same call in the same run keeps the same key.
   */
  idempotencyKey?: string;
}

export type ToolCallOutcome =
  | { status: 'ok'; result: unknown; latencyMs: number; httpStatus: number }
  | { status: 'error'; error: { code: string; message: string }; latencyMs: number; httpStatus?: number }
  | { status: 'pending'; latencyMs: number }
  | { status: 'timed_out'; latencyMs: number };

export const TOOL_RESPONSE_MAX_BYTES = 256 * 1024;

export function toolIdempotencyKey(input: Pick<CallToolEndpointInput, 'runId' | 'tool' | 'arguments' | 'idempotencyKey'>): string {
  const suffix =
    input.idempotencyKey ??
    createHash('sha256').update(`${input.tool}\n${JSON.stringify(input.arguments)}`).digest('hex').slice(0, 24);
  return `${input.runId}:${suffix}`;
}

export async function callToolEndpoint(input: CallToolEndpointInput): Promise<ToolCallOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    assertOutboundUrl(input.endpoint, { allowPrivate: input.allowPrivate, requireHttps: input.requireHttps }, 'endpoint');
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    const code = e.code === 'url_not_allowed' ? 'endpoint_not_allowed' : 'invalid_endpoint';
    return { status: 'error', error: { code, message: e.message }, latencyMs: elapsed() };
  }
  const body = JSON.stringify({
    tool: input.tool,
    arguments: input.arguments,
    conversation_id: input.conversationId,
    run_id: input.runId,
  });
  const headers = { accept: 'application/json', 'idempotency-key': toolIdempotencyKey(input) };
  const attempts = input.idempotent ? 2 : 1;
  for (let attempt = 1; ; attempt++) {
    const remainingMs = input.timeoutMs - (performance.now() - started);
    if (remainingMs <= 0) return { status: 'timed_out', latencyMs: elapsed() };
    try {
      const res = await postSignedJson({
        url: input.endpoint,
        secret: input.signingSecret,
        body,
        timeoutMs: Math.ceil(remainingMs),
        allowPrivate: input.allowPrivate,
        headers,
        // One byte over the cap tells an oversized body from one exactly at it.
        maxBodyBytes: TOOL_RESPONSE_MAX_BYTES + 1,
      });
      return classifyResponse(res, elapsed());
    } catch (e) {
      if (!(e instanceof OutboundNetworkError)) throw e;
      if (e.kind === 'timeout') return { status: 'timed_out', latencyMs: elapsed() };
      if (e.kind === 'blocked') {
        return { status: 'error', error: { code: 'endpoint_not_allowed', message: e.message }, latencyMs: elapsed() };
      }
      if (attempt < attempts) continue;
      return {
        status: 'error',
        error: { code: 'network_error', message: `The tool endpoint could not be reached: ${e.message}` },
        latencyMs: elapsed(),
      };
    }
  }
}

const NO_JSON = Symbol('no-json');

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NO_JSON;
  }
}

/** `{error: {code, message}}` at the top level of a body, as the contract describes a tool failure. */
function bodyError(body: unknown): { code: string; message: string } | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return null;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return {
    code: typeof code === 'string' && code !== '' ? code : 'tool_error',
    message: typeof message === 'string' && message !== '' ? message : 'The tool reported an error',
  };
}

function classifyResponse(res: OutboundResponse, latencyMs: number): ToolCallOutcome {
  const httpStatus = res.status;
  const declaredLength = Number(res.headers['content-length']);
  if (Buffer.byteLength(res.body) > TOOL_RESPONSE_MAX_BYTES || declaredLength > TOOL_RESPONSE_MAX_BYTES) {
    const message = `The tool response is larger than ${TOOL_RESPONSE_MAX_BYTES} bytes`;
    return { status: 'error', error: { code: 'response_too_large', message }, latencyMs, httpStatus };
  }
  const body = res.body.trim() === '' ? NO_JSON : parseJson(res.body);
  const reported = body === NO_JSON ? null : bodyError(body);
  if (httpStatus < 200 || httpStatus > 299) {
    const message = reported?.message ?? `The tool endpoint answered HTTP ${httpStatus}`;
    return { status: 'error', error: { code: `http_${httpStatus}`, message }, latencyMs, httpStatus };
  }
  if (reported) return { status: 'error', error: reported, latencyMs, httpStatus };
  if (httpStatus === 202) return { status: 'pending', latencyMs };
  if (httpStatus === 204) return { status: 'ok', result: null, latencyMs, httpStatus };
  if (body === NO_JSON) {
    const message = `The tool endpoint answered HTTP ${httpStatus} without a JSON body`;
    return { status: 'error', error: { code: 'invalid_response', message }, latencyMs, httpStatus };
  }
  return { status: 'ok', result: body, latencyMs, httpStatus };
}
