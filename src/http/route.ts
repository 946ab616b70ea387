import type { NextFunction, Request, Response, Router } from 'express';
import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z, type ZodError } from 'zod';
import { AppError } from '../domain/errors';
import type { Principal, PublishableKeyGrant, VisitorPrincipal } from '../domain/principal';
import { ErrorResponseSchema } from './schemas';
import { SSE_EVENT_DOC_SCHEMA } from './sse';
import { requireApiRole } from './api-roles';

export type { Principal, PublishableKeyGrant, VisitorPrincipal };

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
    principal?: Principal;
    /** A website visitor calling through a publishable key (never together with `principal`). */
    visitor?: VisitorPrincipal;
    /** The publishable key of a website visitor's request (set with `visitor`, or alone on a `visitor: 'key'` route). */
    publishableKey?: PublishableKeyGrant;
    /** The raw body bytes, kept for idempotency hashing. */
    rawBody?: Buffer;
    /** Route template (`/v1/messages/{id}`) for metrics and idempotency scoping. */
    routeTemplate?: string;
  }
}

export interface RouteContext<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  principal: Principal;
  /** Set on a `visitor` route called with a publishable key; `principal` is then absent. */
  visitor?: VisitorPrincipal;
  /** Set on a `visitor: 'key'` route called with a publishable key (no visitor is identified there). */
  publishableKey?: PublishableKeyGrant;
  req: Request;
  res: Response;
}

export interface RouteSpec<B, Q, P, R extends z.ZodType | undefined = undefined, Raw extends boolean = false> {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI-style path: `/v1/webhook_endpoints/{id}`. */
  path: string;
  summary: string;
  tag: string;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  /** The response object's schema (the area's `*.schemas.ts`): documented, and the handler's result type. */
  response?: R;
  /** Success status; 200 unless given. */
  status?: number;
  /** The handler writes the response itself (streams, redirects, multipart) and returns nothing. */
  raw?: Raw;
  /** Public route (no API key). */
  public?: boolean;
  /**
   * The route also serves website visitors (a publishable key): the handler gets `visitor` instead of
   * `principal` and must confine them to their own objects (canVisitorRead). Every other route refuses a
   * publishable key (403), and only these answer CORS (see visitorAccess). `'key'`: the route serves the
   * publishable key itself, from an allowed origin, without a visitor (no visitor token or identity JWT is
   * read: the widget's public config); the handler gets `publishableKey`.
   */
  visitor?: boolean | 'key';
  /** Documents a `text/event-stream` answer a raw handler may write (SSE), with its status. */
  eventStream?: { status: number; description: string };
  /** Documents a multipart/form-data body that a raw handler reads itself (uploads). */
  multipartBody?: z.ZodType;
  description?: string;
}

/**
 * What a handler returns: the input of the response schema, so a presenter that drifts from the documented
 * object does not compile. A raw handler returns nothing; a route without a response schema is unchecked.
 */
export type RouteResult<R extends z.ZodType | undefined, Raw extends boolean> = Raw extends true
  ? void
  : R extends z.ZodType
    ? z.input<R>
    : unknown;

/** Converts a zod failure on request input into the API's 400 error naming the parameter (422 for UNPROCESSABLE rules). */
export function toRequestError(err: ZodError, location: 'body' | 'query' | 'path'): AppError {
  const issue = closestIssue(err.issues[0]!);
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const key = [...path, issue.keys[0]].join('.');
    return new AppError('parameter_unknown', `Received unknown parameter: ${key}`, { param: key });
  }
  const param = path.join('.') || undefined;
  const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
  if (missing) {
    return new AppError('parameter_missing', `Missing required parameter: ${param}`, { param });
  }
  const where = param ? `${param}` : `request ${location}`;
  // A refinement the document cannot state (an IANA zone's name, an interval's order) marks its issue
  // `params: { unprocessable: true }` (UNPROCESSABLE in domain/api-schema): schema-valid input that breaks it is 422, as the
  // services' own such rules are, so a fuzzer's schema-valid request is never refused 400.
  if (issue.code === 'custom' && (issue.params as { unprocessable?: boolean } | undefined)?.unprocessable) {
    return new AppError('parameter_unprocessable', `Invalid ${where}: ${issue.message}`, { param });
  }
  return new AppError('parameter_invalid', `Invalid ${where}: ${issue.message}`, { param });
}

/**
 * A union's failure names the alternative the input came nearest to (fewest issues), so `{}` against
 * "raw, or from + to + text" says what is missing rather than "Invalid input".
 */
function closestIssue(issue: ZodError['issues'][number]): ZodError['issues'][number] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  const nearest = issue.errors.reduce((best, branch) => (branch.length < best.length ? branch : best));
  const first = nearest[0];
  return first ? closestIssue({ ...first, path: [...issue.path, ...first.path] } as ZodError['issues'][number]) : issue;
}

export function parseInput<T>(schema: z.ZodType<T>, data: unknown, location: 'body' | 'query' | 'path'): T {
  const parsed = schema.safeParse(data ?? (location === 'body' ? {} : data));
  if (!parsed.success) throw toRequestError(parsed.error, location);
  return parsed.data;
}

const expressPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');

/** The visitor routes declared on each router (method, a matcher of the concrete path, and what they serve). */
const visitorRoutes = new WeakMap<Router, Array<{ method: string; pattern: RegExp; kind: VisitorRouteKind }>>();

/** `visitor`: a website visitor (token, identity); `key`: the publishable key alone (see RouteSpec.visitor). */
export type VisitorRouteKind = 'visitor' | 'key';

/** What `method path` serves website visitors on this router (declared with `visitor`), or undefined: not theirs. */
export function visitorRouteKind(router: Router, method: string, path: string): VisitorRouteKind | undefined {
  const m = method.toLowerCase();
  return (visitorRoutes.get(router) ?? []).find((r) => r.method === m && r.pattern.test(path))?.kind;
}

/** Whether `method path` is a route this router serves to website visitors (declared with `visitor`). */
export function isVisitorRoute(router: Router, method: string, path: string): boolean {
  return visitorRouteKind(router, method, path) !== undefined;
}

/**
 * Declares one API operation: validates path, query and body with zod (unknown fields rejected by the
 * strict schemas), registers it in the OpenAPI document, and sends what the handler returns. The handler's
 * result is typed by `response` (see `RouteResult`).
 */
export function defineRoute<
  B = undefined,
  Q = undefined,
  P = undefined,
  R extends z.ZodType | undefined = undefined,
  Raw extends boolean = false,
>(
  router: Router,
  registry: OpenAPIRegistry,
  spec: RouteSpec<B, Q, P, R, Raw>,
  handler: (ctx: RouteContext<B, Q, P>) => Promise<RouteResult<R, Raw>>,
): void {
  const status = spec.status ?? 200;
  const doc: RouteConfig = {
    method: spec.method,
    path: spec.path,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    security: spec.public ? [] : undefined,
    request: {
      ...(spec.params ? { params: spec.params as any } : {}),
      ...(spec.query ? { query: spec.query as any } : {}),
      // Required when an empty object is not a valid body (some field is required).
      ...(spec.body ? { body: { required: !spec.body.safeParse({}).success, content: { 'application/json': { schema: spec.body } } } } : {}),
      ...(spec.multipartBody ? { body: { required: true, content: { 'multipart/form-data': { schema: spec.multipartBody } } } } : {}),
    },
    responses: {
      [status]: {
        description: 'Success',
        ...(spec.response ? { content: { 'application/json': { schema: spec.response } } } : {}),
      },
      ...(spec.eventStream
        ? {
            [spec.eventStream.status]: {
              description: spec.eventStream.description,
              content: {
                ...(spec.eventStream.status === status && spec.response ? { 'application/json': { schema: spec.response } } : {}),
                // One event's shape (Schemathesis checks each parsed event against it).
                'text/event-stream': { schema: SSE_EVENT_DOC_SCHEMA },
              },
            },
          }
        : {}),
      default: { description: 'Error', content: { 'application/json': { schema: ErrorResponseSchema } } },
    },
  };
  registry.registerPath(doc);
  if (spec.visitor) {
    const pattern = new RegExp(`^${spec.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`);
    visitorRoutes.set(router, [...(visitorRoutes.get(router) ?? []), { method: spec.method, pattern, kind: spec.visitor === 'key' ? 'key' : 'visitor' }]);
  }

  router[spec.method](expressPath(spec.path), async (req: Request, res: Response, next: NextFunction) => {
    try {
      req.routeTemplate = spec.path;
      if ((req.visitor || req.publishableKey) && !spec.visitor) throw publishableKeyNotAllowed();
      if (!spec.public && !req.principal && !req.visitor && !req.publishableKey) throw new AppError('api_key_missing', 'No API key provided');
      // The key's role against the one table of what each operation needs (http/api-roles.ts).
      if (req.principal && !spec.public) requireApiRole(req.principal.role, spec.method, spec.path);
      const params = spec.params ? parseInput(spec.params, req.params, 'path') : (undefined as P);
      const query = spec.query ? parseInput(spec.query, req.query, 'query') : (undefined as Q);
      const body = spec.body ? parseInput(spec.body, req.body, 'body') : (undefined as B);
      if (!spec.body && spec.method === 'post' && req.body && Object.keys(req.body).length > 0) {
        const key = Object.keys(req.body)[0]!;
        throw new AppError('parameter_unknown', `Received unknown parameter: ${key}`, { param: key });
      }
      const result = await handler({ body, query, params, principal: req.principal!, visitor: req.visitor, publishableKey: req.publishableKey, req, res });
      if (!spec.raw) res.status(status).json(result);
    } catch (err) {
      next(err);
    }
  });
}

export const publishableKeyNotAllowed = () =>
  new AppError('publishable_key_not_allowed', 'A publishable key can only open chat conversations with its agent and read and post to its visitor\'s own: use a secret key (sk_…) from your server for this');
