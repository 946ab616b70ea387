import type { Express } from 'express';

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Converse console</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem;color:#1f2933}
code{background:#f0f4f8;padding:.1rem .3rem;border-radius:3px}</style></head>
<body><h1>Converse console</h1>
<p>The console for configuring agents, knowledge bases and phone numbers is not built yet.</p>
<ul><li><a href="/docs">API reference</a> (<a href="/v1/openapi.json">OpenAPI 3.1</a>)</li>
<li>Run histories: the Temporal Web UI printed by <code>npm start</code></li></ul>
</body></html>`;

/** The support teams' console, served under /console (a placeholder until the console issue lands). */
export function registerConsoleRoutes(app: Express): void {
  app.get('/console', (_req, res) => {
    res.type('html').send(page);
  });
}
