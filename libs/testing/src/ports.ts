import { createServer, type Server } from 'node:net';

/** Listens on 127.0.0.1 on a port the system picks; that port. */
export function listenOnLoopback(server: Server): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no TCP address'));
      else resolve(address.port);
    });
  });
}

/** A loopback port nothing listens on (it was free a moment ago): for "the server is down" tests. */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  const port = await listenOnLoopback(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
