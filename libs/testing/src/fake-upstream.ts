import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './ports.js';

/** A stand-in for a service behind the gateway: each test sets what it does. */
export interface FakeUpstream {
  url: string;
  received: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  server: Server;
  close(): Promise<void>;
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const fake: Partial<FakeUpstream> = { received: [] };
  fake.handle = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      fake.received!.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      fake.handle!(req, res);
    });
  });
  const port = await listenOnLoopback(server);
  fake.server = server;
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake as FakeUpstream;
}
