import { createConnection, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real server (Redis, RabbitMQ, PostgreSQL) that a fault-injection test
 * can cut and restore: `cut()` drops every open connection and refuses new ones, as a server that
 * crashed or a network that partitioned would; `restore()` lets connections through again.
 * The server behind it keeps its data, so what a test sees after `restore()` is a recovery, not a
 * fresh start.
 */
export interface FaultProxy {
  /** The target URL with host and port pointing at the proxy (credentials, path and query kept). */
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startFaultProxy(targetUrl: string, defaultPort: number): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const targetHost = target.hostname.replace(/^\[|\]$/g, '');
  const targetPort = Number(target.port || defaultPort);
  const sockets = new Set<Socket>();
  let down = false;

  const server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: targetHost, port: targetPort });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });

  const proxied = new URL(targetUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return {
    url: proxied.toString(),
    cut() {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      down = false;
    },
    close() {
      down = true;
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
