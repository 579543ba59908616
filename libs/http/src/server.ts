import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  port: number;
  url: string;
  server: Server;
  close(): Promise<void>;
}

const FORCE_CLOSE_AFTER_MS = 5000;

/** Listens (port 0 picks a free port, for tests) and closes gracefully: in-flight requests finish first. */
export function listen(handler: RequestListener, port = 0, host = '127.0.0.1'): Promise<RunningServer> {
  const server = createServer(handler);
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
