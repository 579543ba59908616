import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, errorBody, type ErrorKind } from '@acs/errors';

/** What node:http's parser reports, mapped to the status it would have sent with an empty body. */
function statusFor(code: string | undefined): { kind: ErrorKind; title: string; message: string; status: number } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        kind: 'bad_request',
        status: 431,
        title: 'Request header fields too large',
        message: 'The request line and headers together exceed the server limit of 16 KiB',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { kind: 'bad_request', status: 408, title: 'Request timeout', message: 'The request was not received in time' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        kind: 'payload_too_large',
        status: 413,
        title: 'Payload too large',
        message: 'The chunk extensions of the request body are too large',
      };
    default:
      return { kind: 'bad_request', status: 400, title: 'Bad request', message: 'The request could not be parsed as HTTP/1.1' };
  }
}

/** The parts of node's socket a clientError handler may look at (node's own default does the same). */
type ClientSocket = Duplex & { _httpMessage?: { headersSent?: boolean } | null };

/** A whole HTTP/1.1 answer in the error shape, for writing straight to a socket that has no response object. */
function rawAnswer(status: number, kind: ErrorKind, title: string, message: string): string {
  const requestId = randomUUID();
  const payload = JSON.stringify(errorBody(new AppError(kind, title, message), requestId));
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? title}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(payload)}`,
    `x-request-id: ${requestId}`,
    'cache-control: no-store',
    'connection: close',
  ].join('\r\n');
  return `${head}\r\n\r\n${payload}`;
}

function endSocket(socket: Duplex, answer: string): void {
  socket.end(answer);
  // A client that never reads must not keep the socket open: end() flushes, destroySoon would wait forever.
  setTimeout(() => socket.destroy(), 5_000).unref();
}

/**
 * node:http answers some requests before any handler runs: 431 for headers over its limit, 400 for
 * a malformed request line or header, 408 when a request is not received in time, 417 for an
 * Expect header other than 100-continue; a CONNECT request it just hangs up on. By default these
 * have no body at all. This gives them the platform's error shape, as every other answer (JSON
 * body, content-type, content-length, X-Request-Id, connection close), and otherwise behaves as
 * node's default: nothing is written over a response already under way, and the connection is
 * closed. `listen()` applies it to every server; call it for a server made elsewhere.
 */
export function answerClientErrorsInErrorShape(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, rawSocket: Duplex) => {
    const socket = rawSocket as ClientSocket;
    // A reset or a socket already gone: nobody to answer (node's default skips these too).
    if (err.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const { kind, status, title, message } = statusFor(err.code);
    endSocket(socket, rawAnswer(status, kind, title, message));
  });
  // No route here is a tunnel: CONNECT is a method this server does not allow.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    endSocket(socket, rawAnswer(405, 'method_not_allowed', 'Method not allowed', 'CONNECT is not supported'));
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const requestId = randomUUID();
    const payload = JSON.stringify(
      errorBody(
        new AppError(
          'bad_request',
          'Expectation failed',
          `Expect: ${String(req.headers.expect).slice(0, 64)} is not supported; only 100-continue is`,
        ),
        requestId,
      ),
    );
    res.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(payload),
      'x-request-id': requestId,
      'cache-control': 'no-store',
      connection: 'close',
    });
    res.end(payload);
  });
}
