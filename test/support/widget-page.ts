import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A business's website on its own loopback origin (`http://localhost:<port>`, not the service's
 * `127.0.0.1`): every path answers the HTML page `html(path)` returns, which embeds the widget as a shop
 * would. Tests change `html` to change the page (hostile CSS, an identify() call).
 */
export class WidgetHostPage {
  origin = '';
  html: (path: string) => string = () => '<!doctype html><title>Shop</title><h1>Shop</h1>';
  private readonly server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(this.html(new URL(req.url ?? '/', 'http://x').pathname));
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://localhost:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A shop's page with the widget's tag as the README gives it (`extraHead`: the shop's own styles or scripts). */
export function shopPage(opts: { base: string; key: string; agentId?: string; extraHead?: string; body?: string }): string {
  const agent = opts.agentId ? ` data-agent="${opts.agentId}"` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme shop</title>${opts.extraHead ?? ''}
<script src="${opts.base}/widget.js" data-key="${opts.key}"${agent} async></script></head>
<body><main><h1>Acme shop</h1><p>Kettles, jackets and more.</p>${opts.body ?? ''}</main></body></html>`;
}
