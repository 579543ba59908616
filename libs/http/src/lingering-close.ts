import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long, and how much, the rest of a refused request's body is read and dropped after the
 * answer before the connection is cut (nginx's lingering_time / lingering_timeout, with a byte
 * bound as well). Enough for a client on a slow line to read a 401 or 413 it was sent mid-upload;
 * a client that keeps sending past it is cut off as before.
 */
const LINGER_LIMITS = { maxMs: 10_000, idleMs: 2_000, maxBytes: 64 * 1024 * 1024 } as const;

type Limits = { maxMs: number; idleMs: number; maxBytes: number };

/**
 * Answering before the body is read (a refusal on the headers, a 413 on Content-Length) with
 * `Connection: close` makes node's server close the socket as soon as the answer is written
 * (socket.destroySoon). Closing a socket whose receive buffer still holds the client's bytes makes
 * the kernel send a reset, and a reset makes the client's kernel drop the answer it has not read
 * yet: the client sees EPIPE or ECONNRESET instead of the 401/413 and its body.
 *
 * Call this before `res.end()` of such an answer: the socket then sends its FIN after the answer
 * (the answer is complete) but stays open for reading, dropping what arrives, until the client has
 * sent its whole request, goes quiet for `idleMs`, or exceeds `maxMs` / `maxBytes`; then it closes.
 * Costs nothing for a request whose body was read: it is not called for those.
 */
export function lingerAfterAnswer(res: ServerResponse, limits: Limits = LINGER_LIMITS): void {
  const socket = res.socket as (Socket & { destroySoon?: () => void }) | null;
  if (!socket || socket.destroyed) return;
  const linger = new Lingering(socket, res, limits);
  // Counting from now: a 'data' listener added once node:http has detached the response does not
  // restart a socket its parser stopped reading, one added while the response is live does.
  socket.on('data', linger.count);
  // node:http calls destroySoon on this socket once the `Connection: close` answer is written; an
  // own property shadows net.Socket's for this one socket only.
  socket.destroySoon = linger.start;
}

/** The drain after the answer: bounded in bytes, in total time and in idle time. */
class Lingering {
  private dropped = 0;
  private overall: NodeJS.Timeout | undefined;
  private idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly res: ServerResponse,
    private readonly limits: Limits,
  ) {}

  readonly count = (chunk: Buffer): void => {
    this.dropped += chunk.length;
    if (this.dropped > this.limits.maxBytes) this.close();
    else this.idle?.refresh();
  };

  readonly start = (): void => {
    if (this.res.req.complete) {
      this.close(); // the body arrived while the answer was written: nothing left to drain
      return;
    }
    this.overall = setTimeout(this.close, this.limits.maxMs).unref();
    this.idle = setTimeout(this.close, this.limits.idleMs).unref();
    // The request ending, or the client closing, means nothing unread is left.
    this.res.req.once('end', this.close);
    this.socket.once('end', this.close);
    this.socket.once('close', this.close);
    this.socket.end(); // FIN after the answer: it is complete
  };

  private readonly close = (): void => {
    clearTimeout(this.overall);
    clearTimeout(this.idle);
    this.socket.off('data', this.count);
    this.socket.destroy();
  };
}
