import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { lingerAfterAnswer } from '@acs/http';
import { listenOnLoopback } from '@acs/testing';

// The bound of lingering-close.ts: a client that keeps sending after its answer is cut off once
// it passes maxBytes or maxMs, or goes quiet for idleMs, so a refused upload cannot hold a
// connection for ever.
const LIMITS = { maxMs: 1_500, idleMs: 1_000, maxBytes: 256 * 1024 };
let server: Server;
let port: number;
/** Set by each sendForever before it connects: the handler hands over how long it kept that connection open. */
let onHandled: (closed: Promise<number>) => void = () => {};

beforeAll(async () => {
  server = createServer((_req, res) => {
    const answeredAt = Date.now();
    onHandled(new Promise((resolve) => res.socket!.once('close', () => resolve(Date.now() - answeredAt))));
    res.writeHead(401, { 'content-type': 'application/json', connection: 'close' });
    lingerAfterAnswer(res, LIMITS);
    res.end('{"error":"refused"}');
  });
  port = await listenOnLoopback(server);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/**
 * A raw TCP client (no HTTP client library closing on its own after the answer): declares a
 * 1 GiB body, then sends `chunk` every `everyMs` (nothing when null) until the server has closed.
 */
async function sendForever(chunk: Buffer | null, everyMs: number): Promise<{ answer: string; openMs: number }> {
  let answer = '';
  const handled = new Promise<Promise<number>>((resolve) => {
    onHandled = resolve;
  });
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  socket.setEncoding('utf8');
  socket.on('data', (text: string) => (answer += text));
  socket.on('error', () => {}); // EPIPE / ECONNRESET once the server cuts off: expected here
  socket.write(`POST / HTTP/1.1\r\nhost: x\r\ncontent-length: ${1024 ** 3}\r\n\r\n`);
  const timer = setInterval(() => {
    if (chunk && socket.writable) socket.write(chunk);
  }, everyMs);
  const openMs = await await handled;
  clearInterval(timer);
  socket.destroy();
  return { answer, openMs };
}

describe('lingerAfterAnswer', () => {
  it('lets the client read the answer, then cuts it off past maxBytes', async () => {
    const outcome = await sendForever(Buffer.alloc(64 * 1024), 5);
    expect(outcome.answer).toMatch(/^HTTP\/1.1 401 Unauthorized\r\n/);
    expect(outcome.answer).toContain('{"error":"refused"}');
    expect(outcome.openMs).toBeLessThan(LIMITS.idleMs);
  });

  it('cuts off a slow client past maxMs', async () => {
    const outcome = await sendForever(Buffer.alloc(1024), 50);
    expect(outcome.answer).toContain('{"error":"refused"}');
    expect(outcome.openMs).toBeGreaterThanOrEqual(LIMITS.maxMs - 50);
    expect(outcome.openMs).toBeLessThan(LIMITS.maxMs + 1_000);
  });

  it('closes after idleMs when the client goes quiet without finishing', async () => {
    const outcome = await sendForever(null, 50);
    expect(outcome.answer).toContain('{"error":"refused"}');
    expect(outcome.openMs).toBeGreaterThanOrEqual(LIMITS.idleMs - 50);
    expect(outcome.openMs).toBeLessThan(LIMITS.maxMs);
  });
});
