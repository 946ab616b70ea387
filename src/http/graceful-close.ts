import type { Server } from 'node:http';

/**
 * Stops accepting connections and lets requests in flight finish, for at most `graceMs`; idle
 * keep-alive connections are closed as they become idle, and whatever still runs at the deadline is cut.
 */
export async function closeGracefully(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
  try {
    await closed;
  } finally {
    clearInterval(idle);
    clearTimeout(deadline);
  }
}
