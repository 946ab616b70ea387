import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CliServices } from './cli-services';
import { createOperatorApp } from './operator.routes';
import type { DataDirLock } from '../db/data-dir-lock';
import type { Logger } from '../observability/logger';

/**
 * Serves the operator endpoint on a loopback port of its own (never the API's port, so no proxy in front
 * of the API reaches it) and records its URL in the data folder's lock, where `npm run cli` finds it.
 */
export async function startOperatorServer(deps: { services: CliServices; lock: DataDirLock; log: Logger }): Promise<{ url: string; close(): Promise<void> }> {
  const app = createOperatorApp({ services: deps.services, token: deps.lock.token, log: deps.log });
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  deps.lock.publishOperatorUrl(url);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
