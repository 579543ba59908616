import type { Socket } from 'node:net';
import { deserialize, serialize } from 'node:v8';

// Messages on the system socket: a 4-byte length, then the value in V8's serialization, which keeps
// what JSON would lose in rows and parameters (Date, Buffer, undefined vs null).

export function writeFrame(socket: Socket, message: unknown): void {
  const body = serialize(message);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  socket.write(Buffer.concat([head, body]));
}

/** Calls `onMessage` for each whole frame that arrives on the socket. */
export function readFrames(socket: Socket, onMessage: (message: unknown) => void): void {
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const length = pending.readUInt32BE(0);
      if (pending.length < 4 + length) break;
      const body = pending.subarray(4, 4 + length);
      pending = pending.subarray(4 + length);
      onMessage(deserialize(body));
    }
  });
}

/** What crosses the socket of an error: enough for sqlStateOf and a message for the operator. */
export interface WireError {
  name: string;
  message: string;
  code?: string;
}

export type Request =
  | { id: number; op: 'query'; service: string; sql: string; params?: readonly unknown[] }
  | { id: number; op: 'begin'; service: string }
  | { id: number; op: 'tx-query'; tx: number; sql: string; params?: readonly unknown[] }
  | { id: number; op: 'commit' | 'rollback'; tx: number }
  | { id: number; op: 'cache'; method: string; args: unknown[] };

export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };

export function toWireError(err: unknown): WireError {
  const e = err as { name?: unknown; message?: unknown; code?: unknown };
  return { name: String(e?.name ?? 'Error'), message: String(e?.message ?? err), ...(typeof e?.code === 'string' ? { code: e.code } : {}) };
}

/** The socket of a running embedded system, in a folder only its OS user may enter. */
export const systemSocketPath = (dataDir: string): string => `${dataDir.replace(/\/+$/, '')}/run/system.sock`;
