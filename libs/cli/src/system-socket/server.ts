import { chmod, mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createServer, type Socket } from 'node:net';
import type { Cache } from '@acs/cache';
import type { Db, Queryable } from '@acs/db';
import type { Logger } from '@acs/logger';
import { readFrames, requestSchema, systemSocketPath, toWireError, writeFrame, type Reply, type Request } from './frames.js';

// While `npm start` runs, it alone may open the embedded database (PGlite has one owner), so the
// CLIs reach it here: their queries and cache writes go through this socket to the system's own
// Db and cache. A Unix socket in DATA_DIR/run (0700, socket 0600): only the same OS user gets in.

/** A CLI's transaction holds the one embedded connection: one idle this long is rolled back. */
const TRANSACTION_IDLE_MS = 15_000;

export interface SystemSocketOptions {
  dataDir: string;
  /** The databases CLIs may use, by service. */
  databases: Record<string, Db>;
  cache: Cache;
  logger: Logger;
}

interface OpenTransaction {
  tx: Queryable;
  /** Restarts the idle clock (a long import keeps its transaction while it keeps sending). */
  touch(): void;
  end(commit: boolean, requestId: number): void;
}

class RolledBack extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RolledBack';
  }
}

/** One CLI's connection: its socket and the transactions it holds open. */
interface Connection {
  socket: Socket;
  options: SystemSocketOptions;
  transactions: Map<number, OpenTransaction>;
  nextTx: number;
}

function reply(conn: Connection, message: Reply): void {
  if (!conn.socket.destroyed) writeFrame(conn.socket, message);
}

const fail = (conn: Connection, id: number, err: unknown): void => reply(conn, { id, ok: false, error: toWireError(err) });

function dbOf({ databases }: SystemSocketOptions, service: string): Db {
  const db = Object.hasOwn(databases, service) ? databases[service] : undefined;
  if (!db) throw new Error(`The running system offers no database "${service}" to CLIs`);
  return db;
}

/**
 * Opens a transaction for the CLI and answers its id; it stays open until the CLI commits or rolls
 * back (answered then, by that request's id), goes idle too long, or the connection closes.
 */
function beginTransaction(conn: Connection, id: number, db: Db): void {
  const txId = conn.nextTx++;
  let endRequest = id;
  let commitAsked = false;
  db.transaction(
    (tx) =>
      new Promise<void>((resolve, reject) => {
        const expire = () => reject(new RolledBack('The transaction stayed idle too long and was rolled back'));
        let timer = setTimeout(expire, TRANSACTION_IDLE_MS);
        conn.transactions.set(txId, {
          tx,
          touch: () => {
            clearTimeout(timer);
            timer = setTimeout(expire, TRANSACTION_IDLE_MS);
          },
          end: (commit, requestId) => {
            clearTimeout(timer);
            endRequest = requestId;
            commitAsked = commit;
            if (commit) resolve();
            else reject(new RolledBack('rolled back'));
          },
        });
        reply(conn, { id, ok: true, value: txId });
      }),
  )
    .then(
      () => reply(conn, { id: endRequest, ok: true, value: null }),
      (err: unknown) => {
        if (endRequest === id) return fail(conn, id, err);
        if (!commitAsked && err instanceof RolledBack) return reply(conn, { id: endRequest, ok: true, value: null });
        fail(conn, endRequest, err);
      },
    )
    .finally(() => conn.transactions.delete(txId));
}

function openTransaction(conn: Connection, txId: number): OpenTransaction {
  const open = conn.transactions.get(txId);
  if (!open) throw new Error('This transaction has already finished');
  return open;
}

async function handleRequest(conn: Connection, request: Request): Promise<void> {
  switch (request.op) {
    case 'query':
      return reply(conn, { id: request.id, ok: true, value: await dbOf(conn.options, request.service).query(request.sql, request.params) });
    case 'begin':
      return beginTransaction(conn, request.id, dbOf(conn.options, request.service));
    case 'tx-query': {
      const open = openTransaction(conn, request.tx);
      open.touch();
      const result = await open.tx.query(request.sql, request.params);
      open.touch();
      return reply(conn, { id: request.id, ok: true, value: result });
    }
    case 'commit':
    case 'rollback':
      return openTransaction(conn, request.tx).end(request.op === 'commit', request.id);
    case 'cache': {
      const { cache } = conn.options;
      const method = (cache as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[request.method]!;
      return reply(conn, { id: request.id, ok: true, value: await method.apply(cache, request.args) });
    }
    default:
      throw new Error('Unknown request');
  }
}

function serveConnection(socket: Socket, options: SystemSocketOptions): void {
  const conn: Connection = { socket, options, transactions: new Map(), nextTx: 1 };
  // A bad frame or a value that is no request: this connection is closed, the system runs on.
  const refuse = (reason: string): void => {
    options.logger.warn({ reason }, 'closed a CLI connection that sent something other than a request');
    socket.destroy();
  };
  readFrames(
    socket,
    (message) => {
      const parsed = requestSchema.safeParse(message);
      if (!parsed.success) return refuse(`a value that is not a request (${parsed.error.issues[0]?.message ?? 'wrong shape'})`);
      const request = parsed.data;
      handleRequest(conn, request).catch((err: unknown) => fail(conn, request.id, err));
    },
    refuse,
  );
  // A CLI that goes away mid-transaction must not hold the database: roll its transactions back.
  socket.on('close', () => {
    for (const open of conn.transactions.values()) open.end(false, -1);
  });
  socket.on('error', (err) => options.logger.debug({ err }, 'a CLI connection failed'));
}

/** Listens on DATA_DIR/run/system.sock until closed. */
export async function serveSystemSocket(options: SystemSocketOptions): Promise<{ path: string; close(): Promise<void> }> {
  const path = systemSocketPath(options.dataDir);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await chmod(dirname(path), 0o700);
  // A socket file left by a crashed run; the data folder lock says no other system is running.
  await rm(path, { force: true });
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveConnection(socket, options);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  await chmod(path, 0o600);
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
