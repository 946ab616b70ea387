/**
 * One error model for the whole service. Services throw AppError; the HTTP error handler turns it into
 * `{"error":{type,code,message,param,request_id}}` using the single policy table below; activities turn it
 * into a Temporal ApplicationFailure whose `type` is the code.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'unprocessable_error'
  | 'rate_limit_error'
  | 'api_error';

export const errorPolicy = {
  // 400
  parameter_missing: { status: 400, type: 'invalid_request_error', retryable: false },
  parameter_invalid: { status: 400, type: 'invalid_request_error', retryable: false },
  parameter_unknown: { status: 400, type: 'invalid_request_error', retryable: false },
  invalid_json: { status: 400, type: 'invalid_request_error', retryable: false },
  method_not_allowed: { status: 405, type: 'invalid_request_error', retryable: false },
  // 401 / 403
  api_key_missing: { status: 401, type: 'authentication_error', retryable: false },
  api_key_invalid: { status: 401, type: 'authentication_error', retryable: false },
  /** A signed hook (inbound email) called without, or with a wrong or stale, Service-Signature. */
  signature_missing: { status: 401, type: 'authentication_error', retryable: false },
  signature_invalid: { status: 401, type: 'authentication_error', retryable: false },
  /** A website visitor's signed token (X-Visitor-Token) that this service did not sign for this agent and mode. */
  visitor_token_invalid: { status: 401, type: 'authentication_error', retryable: false },
  /** A visitor token past its expiry (30 days after it was issued or last renewed): the widget starts a new visitor. */
  visitor_token_expired: { status: 401, type: 'authentication_error', retryable: false },
  /** The agent requires a visitor JWT (X-Visitor-Identity) and none was sent. */
  identity_token_missing: { status: 401, type: 'authentication_error', retryable: false },
  /** A visitor JWT that is malformed, not HS256, names an unknown `kid`, fails its signature, or has bad times. */
  identity_token_invalid: { status: 401, type: 'authentication_error', retryable: false },
  identity_token_expired: { status: 401, type: 'authentication_error', retryable: false },
  /** The CLI's operator endpoint (embedded database) called without, or with a wrong, operator token. */
  operator_token_missing: { status: 401, type: 'authentication_error', retryable: false },
  operator_token_invalid: { status: 401, type: 'authentication_error', retryable: false },
  permission_denied: { status: 403, type: 'permission_error', retryable: false },
  /** A console teammate or an API key whose role is below what the route or the action needs (domain/roles.ts). */
  role_insufficient: { status: 403, type: 'permission_error', retryable: false },
  /** A publishable key used on an operation outside its scope (anything but its agent's visitor chat). */
  publishable_key_not_allowed: { status: 403, type: 'permission_error', retryable: false },
  /** A publishable key used from an Origin (or without one) that is not on its allowed list. */
  origin_not_allowed: { status: 403, type: 'permission_error', retryable: false },
  /** An operation for website widgets only (GET /v1/widget_config) called with a secret key. */
  publishable_key_required: { status: 403, type: 'permission_error', retryable: false },
  sender_not_registered: { status: 403, type: 'permission_error', retryable: false },
  // 404
  resource_missing: { status: 404, type: 'not_found_error', retryable: false },
  route_missing: { status: 404, type: 'not_found_error', retryable: false },
  // 409
  idempotency_key_in_use: { status: 409, type: 'conflict_error', retryable: true },
  source_indexing: { status: 409, type: 'conflict_error', retryable: false },
  conversation_closed: { status: 409, type: 'conflict_error', retryable: false },
  tool_result_expired: { status: 409, type: 'conflict_error', retryable: false },
  approval_expired: { status: 409, type: 'conflict_error', retryable: false },
  tool_call_not_pending: { status: 409, type: 'conflict_error', retryable: false },
  resource_conflict: { status: 409, type: 'conflict_error', retryable: false },
  message_not_cancelable: { status: 409, type: 'conflict_error', retryable: false },
  verification_not_pending: { status: 409, type: 'conflict_error', retryable: false },
  // 422
  idempotency_key_reused: { status: 422, type: 'unprocessable_error', retryable: false },
  source_unreachable: { status: 422, type: 'unprocessable_error', retryable: false },
  unsupported_file: { status: 422, type: 'unprocessable_error', retryable: false },
  file_too_large: { status: 422, type: 'unprocessable_error', retryable: false },
  agent_not_live: { status: 422, type: 'unprocessable_error', retryable: false },
  channel_not_supported: { status: 422, type: 'unprocessable_error', retryable: false },
  /** An email domain whose ownership record was not found, or an address on a domain not proven (live mode). */
  domain_not_verified: { status: 422, type: 'unprocessable_error', retryable: false },
  url_not_allowed: { status: 422, type: 'unprocessable_error', retryable: false },
  /** Records are read and edited one by one only in record sources (a url, document or api source has none). */
  source_not_record: { status: 422, type: 'unprocessable_error', retryable: false },
  /** The value matches the published schema but breaks a rule the schema cannot state (a number not in its plan). */
  parameter_unprocessable: { status: 422, type: 'unprocessable_error', retryable: false },
  account_limit_reached: { status: 422, type: 'unprocessable_error', retryable: false },
  /** Publishing an agent with require_passing_evaluation whose draft has no completed evaluation of its current state. */
  evaluation_required: { status: 422, type: 'unprocessable_error', retryable: false },
  /** Publishing an agent with require_passing_evaluation whose draft's latest evaluation has regressions. */
  evaluation_regression: { status: 422, type: 'unprocessable_error', retryable: false },
  // 429 / 5xx
  rate_limited: { status: 429, type: 'rate_limit_error', retryable: true },
  upstream_unavailable: { status: 503, type: 'api_error', retryable: true },
  planner_unavailable: { status: 502, type: 'api_error', retryable: true },
  service_unavailable: { status: 503, type: 'api_error', retryable: true },
  /** A provider refused our request (4xx other than 429): retrying the same request cannot help. */
  upstream_rejected: { status: 502, type: 'api_error', retryable: false },
  internal_error: { status: 500, type: 'api_error', retryable: true },
} as const satisfies Record<string, { status: number; type: ErrorType; retryable: boolean }>;

export type ErrorCode = keyof typeof errorPolicy;

export interface AppErrorOptions {
  /** The request parameter at fault, dotted path for nested fields (`customer.phone`). */
  param?: string;
  /** Extra machine-readable detail; never shown to API callers. */
  details?: unknown;
  /** Response headers to add (Retry-After for rate limits). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  override readonly name = 'AppError';
  readonly param?: string;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.param = options.param;
    this.details = options.details;
    this.headers = options.headers;
  }

  get status(): number {
    return errorPolicy[this.code].status;
  }

  get type(): ErrorType {
    return errorPolicy[this.code].type;
  }

  get retryable(): boolean {
    return errorPolicy[this.code].retryable;
  }
}

export const notFound = (resource: string, id: string, param = 'id') =>
  new AppError('resource_missing', `No such ${resource}: '${id}'`, { param });

/**
 * A missing object named in the body of a request whose path names another object (a source's `file_id`
 * under /v1/knowledge_bases/{id}/sources, an `endpoint_id` under /v1/events/{id}, a `tool_call_id` under
 * /v1/runs/{id}): 422 naming the parameter, so that a 404 on such a path always speaks of the path's object.
 */
export const referenceMissing = (resource: string, id: string, param: string) =>
  new AppError('parameter_unprocessable', `Invalid ${param}: no such ${resource}: '${id}'`, { param });

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
