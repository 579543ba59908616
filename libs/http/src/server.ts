import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerClientErrorsInErrorShape } from './client-errors.js';

export interface RunningServer {
  port: number;
  url: string;
  server: Server;
  close(): Promise<void>;
}

const FORCE_CLOSE_AFTER_MS = 5000;

/** node:http's timeouts, for tests that need them short (the defaults are node's). */
export type ServerTimeouts = Pick<ServerOptions, 'requestTimeout' | 'headersTimeout' | 'connectionsCheckingInterval'>;

/**
 * Listens (port 0 picks a free port, for tests) and closes gracefully: in-flight requests finish
 * first. Answers node:http gives before the handler runs (431, 400, 408) carry the error shape.
 */
export function listen(handler: RequestListener, port = 0, host = '127.0.0.1', timeouts: ServerTimeouts = {}): Promise<RunningServer> {
  const server = createServer(timeouts, handler);
  answerClientErrorsInErrorShape(server);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
      resolve({
        port: address.port,
        url: `http://${shownHost}:${address.port}`,
        server,
        close: () => closeGracefully(server),
      });
    });
  });
}

function closeGracefully(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), FORCE_CLOSE_AFTER_MS);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
