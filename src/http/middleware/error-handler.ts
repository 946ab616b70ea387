import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError } from '../../domain/errors';
import type { Logger } from '../../observability/logger';
import { isDatabaseUnavailable } from '../../db/unavailable';

/** Postgres refusing a character (U+0000 in text or jsonb): the request's fault, not ours. */
const PG_BAD_CHARACTER = new Set(['22021', '22P05']);

function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const e = err as { type?: string; status?: number; message?: string; limit?: number; code?: string };
  if (e?.type === 'entity.parse.failed') return new AppError('invalid_json', 'Request body is not valid JSON');
  if (e?.type === 'entity.too.large') return new AppError('parameter_invalid', `Request body is larger than ${e.limit ?? 'the limit of'} bytes`);
  if (e?.type === 'charset.unsupported' || e?.type === 'encoding.unsupported') {
    return new AppError('parameter_invalid', e.message ?? 'Unsupported body encoding');
  }
  // Other body-reading failures (aborted, malformed length) and undecodable path parameters (`%FF`).
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && (e.type || /decode param/i.test(e.message ?? ''))) {
    return new AppError('parameter_invalid', e.type ? `The request body could not be read (${e.type})` : 'The request URL is not valid percent-encoded UTF-8');
  }
  if (typeof e?.code === 'string' && PG_BAD_CHARACTER.has(e.code)) {
    return new AppError('parameter_unprocessable', 'The request contains characters that cannot be stored (NUL, U+0000)');
  }
  if (isDatabaseUnavailable(err)) {
    return new AppError('service_unavailable', 'The service is briefly unavailable; retry the request', { headers: { 'Retry-After': '1' }, cause: err });
  }
  return undefined;
}

/** The one place where errors become HTTP: `{"error":{type,code,message,param,request_id}}`. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appErr = toAppError(err);
    if (!appErr) log.error({ err, requestId: req.requestId, path: req.path }, 'Unhandled error');
    else if (appErr.code === 'service_unavailable') log.warn({ err: (err as Error).message, requestId: req.requestId }, 'Database unavailable');
    const e = appErr ?? new AppError('internal_error', 'Something went wrong on our side; retry the request');
    for (const [k, v] of Object.entries(e.headers ?? {})) res.setHeader(k, v);
    if (res.headersSent) return res.end();
    res.status(e.status).json({
      error: {
        type: e.type,
        code: e.code,
        message: e.message,
        ...(e.param ? { param: e.param } : {}),
        request_id: req.requestId,
      },
    });
  };
}

export const routeNotFound: RequestHandler = (req, _res, next) =>
  next(new AppError('route_missing', `Unrecognized request URL (${req.method}: ${req.path})`));
