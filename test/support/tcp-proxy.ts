import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on loopback that a test (or the chaos script) controls: `cut()` drops every connection
 * and refuses new ones (the server process is gone), `restore()` accepts again on the same port.
 */
export class TcpProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private listenPort = 0;

  constructor(
    private readonly target: { host: string; port: number },
  ) {}

  get port(): number {
    return this.listenPort;
  }

  async start(): Promise<number> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(this.listenPort, '127.0.0.1', () => resolve()));
    this.listenPort = (server.address() as AddressInfo).port;
    return this.listenPort;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async restore(): Promise<void> {
    if (!this.server) await this.start();
  }
}
