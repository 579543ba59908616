import type { IncomingMessage } from 'node:http';

/**
 * The whole request body, or null past `limitBytes` (the caller answers 413 and the connection closes);
 * only for the few requests the gateway must read before forwarding (an Idempotency-Key, a leak report).
 */
export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limitBytes) {
        req.off('data', onData);
        req.pause();
        resolve(null);
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
    req.once('aborted', () => reject(new Error('client aborted the request body')));
  });
}
