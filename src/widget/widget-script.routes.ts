import type { Router } from 'express';
import { widgetScript } from './widget-script';

/** Browsers may keep widget.js this long before asking again (then a 304 while it is unchanged). */
const MAX_AGE_SECONDS = 300;

/**
 * GET /widget.js: the website widget, for `<script src="{base}/widget.js" data-key="pk_…" async>` on any
 * site. Public (no key), built once at start: ETag (If-None-Match answers 304), Cache-Control, gzip when the
 * browser accepts it, and `Access-Control-Allow-Origin: *` so that a page may load it with `integrity` and
 * `crossorigin`. The integrity hash is `widgetScript().integrity`.
 */
export function registerWidgetScriptRoutes(router: Router): void {
  const script = widgetScript();
  router.get('/widget.js', (req, res) => {
    res.set({
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': `public, max-age=${MAX_AGE_SECONDS}, stale-while-revalidate=86400`,
      ETag: script.etag,
      Vary: 'Accept-Encoding',
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
    });
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    const gzip = /\bgzip\b/i.test(req.header('Accept-Encoding') ?? '');
    if (gzip) res.set('Content-Encoding', 'gzip');
    const bytes = gzip ? script.gzip : script.body;
    res.set('Content-Length', String(bytes.length));
    res.status(200).end(bytes);
  });
}
