import { connect } from 'node:net';

export interface RawAnswer {
  /** The status line's code; 0 when the server closed without answering. */
  status: number;
  /** Header names in lower case (the last value of a repeated one). */
  headers: Record<string, string>;
  body: string;
  /** Everything the server sent, as text. */
  raw: string;
}

/**
 * Writes `request` to a fresh TCP connection as is and reads until the server closes it (or
 * `timeoutMs` passes): for requests no HTTP client will send (malformed request lines, headers
 * past the limit, requests never finished).
 */
export function rawHttpExchange(port: number, request: string | Buffer, timeoutMs = 10_000, host = '127.0.0.1'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error(`no close within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may close while a large request is still being written: what it sent still counts.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') {
        clearTimeout(timer);
        reject(err);
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      const head = split === -1 ? raw : raw.slice(0, split);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
        headers,
        body: split === -1 ? '' : raw.slice(split + 4),
        raw,
      });
    });
    socket.write(request);
  });
}

/** A GET whose headers are past node:http's 16 KiB limit (a 17 KiB Authorization header). */
export const oversizedHeadersRequest = (path = '/'): string =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(17 * 1024)}\r\n\r\n`;
/** A request line that is not HTTP at all. */
export const malformedRequestLine = 'THIS IS NOT HTTP\r\n\r\n';
