import express, { type Express } from 'express';
import type { Kysely } from 'kysely';
import type { Config } from '../config/env';
import { registerVoiceWebhookRoutes } from '../channels/voice/voice.routes';
import type { DB } from '../db/schema';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { Services } from './container';
import { authenticate } from '../http/middleware/auth';
import { visitorAccess } from '../http/middleware/visitor-access';
import { errorHandler, routeNotFound } from '../http/middleware/error-handler';
import { idempotency } from '../http/middleware/idempotency';
import { methodNotAllowed } from '../http/middleware/method-not-allowed';
import { jsonBody, rejectNulInUrl } from '../http/middleware/json-body';
import { clientAddressLimit, rateLimit } from '../http/middleware/rate-limit';
import { requestId } from '../http/middleware/request-id';
import { createOpenApiRegistry } from '../http/openapi';
import { largeBodyRoutes, registerApiRoutes, registerChannelRoutes, registerConsoleRoutes } from './routes';
import { registerSystemRoutes, type ReadinessCheck } from '../http/system.routes';
import { publicBaseUrlWarning } from '../domain/public-links';
import { securityHeaders } from '../http/middleware/security-headers';

export interface AppDeps {
  config: Config;
  db: Kysely<DB>;
  services: Services;
  log: Logger;
  metrics: Metrics;
  readiness: ReadinessCheck[];
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('trust proxy', deps.config.http.trustProxy);
  app.use(requestId);
  // One place for the framing / sniffing / referrer headers of every page and response (issue 28 #15).
  app.use(securityHeaders);
  app.use((req, res, next) => {
    const end = deps.metrics.httpDuration.startTimer();
    res.on('finish', () => {
      const route = req.routeTemplate ?? 'unmatched';
      deps.metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      const seconds = end({ method: req.method, route });
      if (req.path.startsWith('/v1/')) {
        deps.log.info(
          { requestId: req.requestId, accountId: req.principal?.accountId ?? req.visitor?.accountId, method: req.method, route, status: res.statusCode, ms: Math.round(seconds * 1000) },
          'Request handled',
        );
      }
    });
    next();
  });
  // Nothing is read from a body before authentication (jsonBody below); anonymous callers are limited per address.
  const clientLimit = clientAddressLimit({ perSecond: deps.config.rateLimit.anonymousPerSecond });
  // Provider webhooks come from the provider's few addresses at the pace of its calls: only a request that
  // fails its signature is charged to the address (like a bad API key).
  registerVoiceWebhookRoutes(app, { voiceCalls: deps.services.voiceCalls, config: deps.config, chargeFailure: clientLimit.charge });
  app.use(clientLimit.anonymous);
  app.use(rejectNulInUrl);

  const registry = createOpenApiRegistry();
  registerSystemRoutes(app, {
    registry,
    metrics: deps.metrics,
    readiness: deps.readiness,
    warnings: async () => {
      const warning = await publicBaseUrlWarning(deps.config.http, () => deps.services.accounts.liveKeysExist());
      return warning ? [warning] : [];
    },
    publicBaseUrl: deps.config.http.publicBaseUrl,
    metricsAccess: deps.config.metrics,
  });
  registerConsoleRoutes(app, { services: deps.services, config: deps.config, log: deps.log });
  app.get('/', (_req, res) => {
    res.redirect('/console');
  });

  registerChannelRoutes(app, { services: deps.services, config: deps.config });

  const api = express.Router();
  // Website visitors (publishable keys) and CORS preflights first: a pk request never reaches API-key authentication.
  api.use(visitorAccess({
    router: api,
    visitors: deps.services.publishableKeys,
    perKeyPerSecond: deps.config.visitorRateLimit.perKeyPerSecond,
    perVisitorPerSecond: deps.config.visitorRateLimit.perVisitorPerSecond,
    chargeFailure: clientLimit.charge,
  }));
  api.use(authenticate(deps.services.accounts, { chargeFailure: clientLimit.charge }));
  api.use(rateLimit({ perSecond: deps.config.rateLimit.perSecond }));
  api.use(jsonBody({ limitBytes: deps.config.http.jsonLimitBytes, largeLimitBytes: deps.config.http.jsonLargeLimitBytes, largeRoutes: largeBodyRoutes }));
  api.use(idempotency(deps.db, deps.log, { maxMultipartBytes: deps.config.knowledge.maxFileBytes + 1_000_000 }));
  registerApiRoutes({ router: api, registry, services: deps.services, config: deps.config });
  app.use(api);

  app.use(methodNotAllowed(registry));
  app.use(routeNotFound);
  app.use(errorHandler(deps.log));
  return app;
}
