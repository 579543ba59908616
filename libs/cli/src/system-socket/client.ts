import { connect, type Socket } from 'node:net';
import type { Cache } from '@acs/cache';
import type { Db, Queryable, QueryResult } from '@acs/db';
import { readFrames, systemSocketPath, writeFrame, type CacheMethod, type Reply, type Request, type WireError } from './frames.js';

type Pending = { resolve(value: unknown): void; reject(err: unknown): void };
type Call = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** An error as the system reported it; `code` keeps the SQLSTATE (so isUniqueViolation works). */
function fromWire(error: WireError): Error {
  return Object.assign(new Error(error.message), { name: error.name, ...(error.code ? { code: error.code } : {}) });
}

export interface SystemConnection {
  db(service: string): Db;
  cache: Cache;
  close(): Promise<void>;
}

type Caller = <T>(request: Call) => Promise<T>;

/** Connects to the system's socket; a system that holds the folder but cannot be reached is told as such. */
function openSocket(dataDir: string, pid: number): Promise<Socket> {
  const path = systemSocketPath(dataDir);
  return new Promise((resolve, reject) => {
    const s = connect(path, () => resolve(s));
    s.once('error', (err) =>
      reject(
        new Error(
          `The embedded system (pid ${pid}) is using ${dataDir}, and its socket ${path} cannot be reached (${err.message}). ` +
            'Stop it (Ctrl-C in its terminal) and run this command again.',
        ),
      ),
    );
  });
}

/** Requests over the socket, each answered by the reply with its id; once the socket closes, every call waiting and every later one fails. */
function socketCaller(socket: Socket): { call: Caller; isClosed: () => boolean } {
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let closed = false;
  readFrames(
    socket,
    (message) => {
      const reply = message as Reply;
      const waiting = pending.get(reply.id);
      if (!waiting) return;
      pending.delete(reply.id);
      if (reply.ok) waiting.resolve(reply.value);
      else waiting.reject(fromWire(reply.error));
    },
    // The system sent what no system of ours sends: closing rejects every call still waiting.
    () => socket.destroy(),
  );
  socket.on('close', () => {
    closed = true;
    for (const waiting of pending.values()) waiting.reject(new Error('The embedded system closed the connection (was it stopped?)'));
    pending.clear();
  });
  socket.on('error', () => {});
  const call = <T>(request: Call): Promise<T> => {
    if (closed) return Promise.reject(new Error('The connection to the embedded system is closed'));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      writeFrame(socket, { ...request, id });
    });
  };
  return { call, isClosed: () => closed };
}

/** A transaction held by the system (begin, its queries, commit or rollback); its queries fail once it has finished. */
async function remoteTransaction<T>(call: Caller, service: string, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  const tx = await call<number>({ op: 'begin', service });
  let open = true;
  const scoped: Queryable = {
    query: <R>(sql: string, params?: readonly unknown[]) =>
      open
        ? call<QueryResult<R>>({ op: 'tx-query', tx, sql, ...(params ? { params: [...params] } : {}) })
        : Promise.reject(new Error('This transaction has already finished')),
  };
  let result: T;
  try {
    result = await fn(scoped);
  } catch (err) {
    open = false;
    await call({ op: 'rollback', tx }).catch(() => {});
    throw err;
  }
  open = false;
  await call({ op: 'commit', tx });
  return result;
}

/** A service's database in the system, as a Db; closing it closes nothing (the connection does). */
function remoteDb(call: Caller, service: string): Db {
  return {
    kind: 'pglite',
    query: <R>(sql: string, params?: readonly unknown[]) =>
      call<QueryResult<R>>({ op: 'query', service, sql, ...(params ? { params: [...params] } : {}) }),
    transaction: (fn) => remoteTransaction(call, service, fn),
    ping: async () => {
      await call({ op: 'query', service, sql: 'SELECT 1' });
    },
    close: async () => {},
  };
}

/** The system's cache, as a Cache; ping answers false once the system cannot be asked. */
function remoteCache(call: Caller): Cache {
  const cacheCall =
    <T>(method: CacheMethod) =>
    (...args: unknown[]): Promise<T> =>
      call<T>({ op: 'cache', method, args });
  return {
    get: cacheCall('get'),
    mget: cacheCall('mget'),
    set: cacheCall('set'),
    del: cacheCall('del'),
    setIfNewer: cacheCall('setIfNewer'),
    getVersioned: cacheCall('getVersioned'),
    mgetVersioned: cacheCall('mgetVersioned'),
    incrWithTtl: cacheCall('incrWithTtl'),
    ping: () => cacheCall<boolean>('ping')().catch(() => false),
    close: async () => {},
  };
}

/** A CLI's line to the running embedded system (see server.ts): its database and cache, as if local. */
export async function connectSystemSocket(dataDir: string, pid: number): Promise<SystemConnection> {
  const socket = await openSocket(dataDir, pid);
  const { call, isClosed } = socketCaller(socket);
  return {
    db: (service) => remoteDb(call, service),
    cache: remoteCache(call),
    close: () =>
      new Promise<void>((resolve) => {
        if (isClosed()) return resolve();
        socket.end(() => resolve());
        socket.once('close', () => resolve());
      }),
  };
}
