import { Agent, request } from 'node:http';
import { connect } from 'node:net';

/** One request as the fuzz suite sends it: everything a client could get wrong is in the caller's hands. */
export interface OutgoingRequest {
  method: string;
  /** Path and query, already percent-encoded where the case wants valid URLs. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Sent with Transfer-Encoding: chunked (no Content-Length), in pieces of this many bytes. */
  chunkBytes?: number;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

// One connection per request: a counterexample must reproduce from that request alone, whatever the
// connection carried before.
const agent = new Agent({ keepAlive: false });

export function closeExchanges(): void {
  agent.destroy();
}

/** Sends with node:http, so chunked bodies and any content type can be sent; the answer is read whole. */
export function exchange(base: string, outgoing: OutgoingRequest): Promise<Answer> {
  const url = new URL(base);
  const headers = { ...outgoing.headers };
  if (outgoing.body && !outgoing.chunkBytes) headers['content-length'] = String(outgoing.body.length);
  // Explicit: node:http sends a GET or DELETE body unframed unless told to chunk it.
  if (outgoing.body && outgoing.chunkBytes) headers['transfer-encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    let answered: Answer | null = null;
    const chunks: Buffer[] = [];
    const req = request({ host: url.hostname, port: url.port, method: outgoing.method, path: outgoing.path, headers, agent }, (res) => {
      answered = { status: res.statusCode ?? 0, headers: res.headers, text: '' };
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ ...answered!, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    // A server that refuses a body mid-upload (413) answers and closes: the write then fails, but the answer stands.
    req.on('error', (err) => (answered ? resolve({ ...answered, text: Buffer.concat(chunks).toString('utf8') }) : reject(err)));
    const body = outgoing.body;
    if (body && outgoing.chunkBytes) {
      for (let at = 0; at < body.length; at += outgoing.chunkBytes) req.write(body.subarray(at, at + outgoing.chunkBytes));
      req.end();
    } else {
      req.end(body);
    }
  });
}

/**
 * Writes bytes no HTTP client library would send (a NUL in a header, a broken request line) on a
 * fresh connection and reads the answer until the server closes it.
 */
export function rawExchange(base: string, bytes: Buffer): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    // Written, not ended: node:http drops a connection whose client half-closes before it answers.
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' && chunks.length > 0 ? undefined : reject(err)));
    socket.on('close', () => {
      try {
        resolve(parseAnswer(Buffer.concat(chunks)));
      } catch (err) {
        reject(err);
      }
    });
  });
}

function parseAnswer(raw: Buffer): Answer {
  const split = raw.indexOf('\r\n\r\n');
  if (split === -1) throw new Error(`not an HTTP answer: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(split + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status: Number(statusLine!.split(' ')[1]), headers, text: body.toString('utf8') };
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
