import { createServer, type Server } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Config } from '../config/env';
import type { Metrics } from '../observability/metrics';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * Who may read /metrics on the API port. With METRICS_PORT set, nobody (the metrics listener serves them);
 * with METRICS_TOKEN, a caller presenting `Authorization: Bearer <token>`; with neither, callers on the
 * loopback interface only (the socket's address: X-Forwarded-For is not consulted). Others get a 404, so
 * the route's existence does not show.
 */
export function metricsAllowed(config: Config['metrics'], req: Pick<Request, 'headers' | 'socket'>): boolean {
  if (config.port !== undefined) return false;
  if (config.token) {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
    return Boolean(m && sameSecret(m[1]!, config.token));
  }
  return LOOPBACK.has(req.socket.remoteAddress ?? '');
}

export function metricsHandler(metrics: Metrics, config: Config['metrics']): RequestHandler {
  return async (req, res, next) => {
    if (!metricsAllowed(config, req)) return next();
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  };
}

/** The separate metrics listener (METRICS_PORT on METRICS_HOST): `/metrics` only, token checked if set. */
export function startMetricsServer(metrics: Metrics, config: Config['metrics'] & { port: number }): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const authorised = !config.token || metricsAllowed({ ...config, port: undefined }, req as unknown as Request);
    if (req.method !== 'GET' || path !== '/metrics' || !authorised) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    metrics.registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  return new Promise((resolve) => server.listen(config.port, config.host, () => resolve(server)));
}
