import { createConnection, createServer, type Socket } from 'node:net';
import { listenOnLoopback } from './ports.js';

/**
 * A TCP proxy in front of a real server (Redis, RabbitMQ, PostgreSQL) that a fault-injection test
 * can cut and restore: `cut()` drops every open connection and refuses new ones, as a server that
 * crashed or a network that partitioned would; `restore()` lets connections through again.
 * The server behind it keeps its data, so what a test sees after `restore()` is a recovery, not a
 * fresh start. `holdReplies()` keeps what the server sends until `releaseReplies()`, as a slow
 * server or network would, so a test can act while a reply is known to be outstanding.
 */
export interface FaultProxy {
  /** The target URL with host and port pointing at the proxy (credentials, path and query kept). */
  url: string;
  cut(): void;
  restore(): void;
  /** From now on, bytes from the server wait in the proxy (requests still go through). */
  holdReplies(): void;
  /** Sends what was held, in order, and lets replies through again. */
  releaseReplies(): void;
  /** Bytes from the server held so far (a test can wait until a request has been answered). */
  heldBytes(): number;
  close(): Promise<void>;
}

/** What the proxy's connections share: its switches, and the replies held while `holding`. */
interface ProxyState {
  readonly sockets: Set<Socket>;
  down: boolean;
  holding: boolean;
  readonly held: { client: Socket; chunk: Buffer }[];
}

export async function startFaultProxy(targetUrl: string, defaultPort: number): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const targetHost = target.hostname.replace(/^\[|\]$/g, '');
  const targetPort = Number(target.port || defaultPort);
  const state: ProxyState = { sockets: new Set(), down: false, holding: false, held: [] };
  const server = createServer((client) => relay(state, client, targetHost, targetPort));
  const port = await listenOnLoopback(server);

  const proxied = new URL(targetUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return {
    url: proxied.toString(),
    cut() {
      state.down = true;
      for (const socket of state.sockets) socket.destroy();
    },
    restore() {
      state.down = false;
    },
    holdReplies() {
      state.holding = true;
    },
    releaseReplies() {
      state.holding = false;
      for (const { client, chunk } of state.held.splice(0)) if (!client.destroyed) client.write(chunk);
    },
    heldBytes() {
      return state.held.reduce((sum, { chunk }) => sum + chunk.length, 0);
    },
    close() {
      state.down = true;
      for (const socket of state.sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** One client's connection: refused while down, else piped to the target with replies held while holding. */
function relay(state: ProxyState, client: Socket, targetHost: string, targetPort: number): void {
  if (state.down) {
    client.destroy();
    return;
  }
  const upstream = createConnection({ host: targetHost, port: targetPort });
  for (const socket of [client, upstream]) {
    state.sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => {
      state.sockets.delete(socket);
      client.destroy();
      upstream.destroy();
    });
  }
  client.pipe(upstream);
  upstream.on('data', (chunk: Buffer) => {
    if (state.holding) state.held.push({ client, chunk });
    else if (!client.write(chunk)) {
      upstream.pause(); // backpressure, as pipe() would
      client.once('drain', () => upstream.resume());
    }
  });
}
