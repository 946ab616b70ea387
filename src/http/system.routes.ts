import express, { type Express } from 'express';
import swaggerUiDist from 'swagger-ui-dist';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Metrics } from '../observability/metrics';
import { generateOpenApiDocument } from './openapi';
import type { Config } from '../config/env';
import { metricsHandler } from './metrics-access';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

/** Something an operator should fix that does not make the service unready (PUBLIC_BASE_URL unset while live keys exist). */
export interface ReadinessWarning {
  code: string;
  message: string;
}

const docsPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>Converse API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#ui' });</script>
</body></html>`;

/** Unauthenticated operational routes: health, readiness, metrics (restricted: metrics-access.ts), OpenAPI and its browsable docs. */
export function registerSystemRoutes(
  app: Express,
  deps: {
    registry: OpenAPIRegistry;
    metrics: Metrics;
    readiness: ReadinessCheck[];
    /** Warnings /readyz lists while still answering ready (a failing look-up adds none: the checks report the database). */
    warnings?: () => Promise<ReadinessWarning[]>;
    publicBaseUrl: string;
    metricsAccess: Config['metrics'];
  },
) {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    const checks: Record<string, string> = {};
    let ok = true;
    await Promise.all(
      deps.readiness.map(async (c) => {
        try {
          await Promise.race([c.check(), new Promise((_, rej) => setTimeout(() => rej(new Error('timed out')), 3000))]);
          checks[c.name] = 'ok';
        } catch (err) {
          ok = false;
          checks[c.name] = `error: ${(err as Error).message}`;
        }
      }),
    );
    const warnings = (await deps.warnings?.().catch(() => [])) ?? [];
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable', checks, warnings });
  });

  app.get('/metrics', metricsHandler(deps.metrics, deps.metricsAccess));

  let document: unknown;
  app.get('/v1/openapi.json', (_req, res) => {
    document ??= generateOpenApiDocument(deps.registry, deps.publicBaseUrl);
    res.json(document);
  });
  app.use('/docs/assets', express.static(swaggerUiDist.getAbsoluteFSPath(), { index: false }));
  app.get('/docs', (_req, res) => {
    res.type('html').send(docsPage);
  });
}
