import type { IncomingMessage } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';

/** Raised inside the upstream call when a streamed body crosses the limit; the exchange answers 413 for it. */
class BodyTooLargeError extends Error {
  readonly code = 'ACS_BODY_TOO_LARGE';
  constructor(readonly limitBytes: number) {
    super(`request body exceeds ${limitBytes} bytes`);
  }
}

export const isBodyTooLarge = (err: unknown): boolean => {
  for (
    let current = err, depth = 0;
    typeof current === 'object' && current !== null && depth < 5;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    if (current instanceof BodyTooLargeError) return true;
  }
  return false;
};

/**
 * A body sent without Content-Length (Transfer-Encoding: chunked) has no size to check up front:
 * count it while it streams to the service and fail the upstream call the moment it crosses the
 * limit, so the gateway never holds or forwards more than `limitBytes` of it. Declared bodies are
 * checked before forwarding and held to their length by node:http, so they skip this.
 */
export function limitStreamedBody(req: IncomingMessage, limitBytes: number): Transform {
  let seen = 0;
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > limitBytes) {
        req.unpipe(limiter);
        callback(new BodyTooLargeError(limitBytes));
        return;
      }
      callback(null, chunk);
    },
  });
  // A client that breaks off mid-body ends the upstream call too, instead of leaving it waiting.
  req.once('aborted', () => limiter.destroy(new Error('client aborted the request body')));
  req.pipe(limiter);
  return limiter;
}
