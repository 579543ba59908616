import type { Socket } from 'node:net';
import { deserialize, serialize } from 'node:v8';
import { z } from 'zod';

// Messages on the system socket: a 4-byte length, then the value in V8's serialization, which keeps
// what JSON would lose in rows and parameters (Date, Buffer, undefined vs null).

export function writeFrame(socket: Socket, message: unknown): void {
  const body = serialize(message);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  socket.write(Buffer.concat([head, body]));
}

/**
 * The largest frame either side sends or accepts: a CLI's biggest request is one import batch
 * (20,000 entries as one jsonb parameter, about 10 MB). A longer announced length is refused as
 * soon as its 4 bytes arrive, before any of the body is buffered.
 */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/**
 * Calls `onMessage` for each whole frame that arrives on the socket. A frame over the cap, or one
 * whose bytes are not a V8-serialized value, calls `onBadFrame` once with the reason and stops
 * reading: after a bad frame the stream's boundaries cannot be trusted, so the caller closes it.
 */
export function readFrames(socket: Socket, onMessage: (message: unknown) => void, onBadFrame: (reason: string) => void): void {
  let pending = Buffer.alloc(0);
  let stopped = false;
  const stop = (reason: string): void => {
    stopped = true;
    pending = Buffer.alloc(0);
    onBadFrame(reason);
  };
  socket.on('data', (chunk: Buffer) => {
    if (stopped) return;
    pending = Buffer.concat([pending, chunk]);
    while (!stopped && pending.length >= 4) {
      const length = pending.readUInt32BE(0);
      if (length > MAX_FRAME_BYTES) return stop(`a frame of ${length} bytes, over the ${MAX_FRAME_BYTES}-byte cap`);
      if (pending.length < 4 + length) break;
      const body = pending.subarray(4, 4 + length);
      pending = pending.subarray(4 + length);
      let message: unknown;
      try {
        message = deserialize(body);
      } catch {
        return stop('a frame that is not a V8-serialized value');
      }
      onMessage(message);
    }
  });
}

/** What crosses the socket of an error: enough for sqlStateOf and a message for the operator. */
export interface WireError {
  name: string;
  message: string;
  code?: string;
}

/** The cache calls a CLI may make (the Cache interface without close). */
const CACHE_METHODS = ['get', 'mget', 'set', 'del', 'setIfNewer', 'getVersioned', 'mgetVersioned', 'incrWithTtl', 'ping'] as const;
export type CacheMethod = (typeof CACHE_METHODS)[number];

const requestId = z.number().int().nonnegative();
const sqlParams = z.array(z.unknown()).optional();
const transactionId = z.number().int().positive();

/** What a CLI may ask, checked on arrival: anything else is a bad frame, not a request. */
export const requestSchema = z.discriminatedUnion('op', [
  z.object({ id: requestId, op: z.literal('query'), service: z.string(), sql: z.string(), params: sqlParams }),
  z.object({ id: requestId, op: z.literal('begin'), service: z.string() }),
  z.object({ id: requestId, op: z.literal('tx-query'), tx: transactionId, sql: z.string(), params: sqlParams }),
  z.object({ id: requestId, op: z.enum(['commit', 'rollback']), tx: transactionId }),
  z.object({ id: requestId, op: z.literal('cache'), method: z.enum(CACHE_METHODS), args: z.array(z.unknown()) }),
]);

export type Request = z.infer<typeof requestSchema>;

export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };

export function toWireError(err: unknown): WireError {
  const e = err as { name?: unknown; message?: unknown; code?: unknown };
  return { name: String(e?.name ?? 'Error'), message: String(e?.message ?? err), ...(typeof e?.code === 'string' ? { code: e.code } : {}) };
}

/** The socket of a running embedded system, in a folder only its OS user may enter. */
export const systemSocketPath = (dataDir: string): string => `${dataDir.replace(/\/+$/, '')}/run/system.sock`;
