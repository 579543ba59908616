import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { serveSystemSocket } from '@acs/cli';
import { createMemoryCache, type Cache } from '@acs/cache';
import { openDatabase, type Db } from '@acs/db';
import { captureLogger, createTestDatabase, type TestDatabase } from '@acs/testing';
import { connectSystemSocket } from '../src/system-socket/client.js';
import { MAX_FRAME_BYTES } from '../src/system-socket/frames.js';

// Whatever arrives on the socket, a bad frame costs its own connection only: the running system
// (here the server, its database and its cache) keeps answering the next CLI.

let dataDir: string;
let database: TestDatabase;
let db: Db;
let cache: Cache;
let server: { path: string; close(): Promise<void> };
const log = captureLogger('socket-test', 'warn');

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'acs-socket-'));
  database = await createTestDatabase('cli_socket');
  db = await openDatabase({ url: database.url, logger: log.logger });
  cache = createMemoryCache();
  server = await serveSystemSocket({ dataDir, databases: { notes: db }, cache, logger: log.logger });
});
afterAll(async () => {
  await server?.close();
  await db?.close();
  await cache?.close();
  await database?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

/** Sends raw bytes on a new connection; resolves once the server has closed it (or after `waitMs` if it stays open). */
function sendRaw(bytes: Buffer, waitMs = 2_000): Promise<'closed' | 'open'> {
  return new Promise((resolve) => {
    const socket: Socket = connect(server.path, () => socket.write(bytes));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('open');
    }, waitMs);
    socket.on('error', () => {});
    socket.once('close', () => {
      clearTimeout(timer);
      resolve('closed');
    });
  });
}

const frame = (body: Buffer, length = body.length): Buffer => {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(length);
  return Buffer.concat([head, body]);
};

/** A CLI's ordinary round trip: the system still answers. */
async function systemAnswers(): Promise<void> {
  const connection = await connectSystemSocket(dataDir, 1);
  try {
    expect((await connection.db('notes').query<{ n: number }>('SELECT 41 + 1 AS n')).rows).toEqual([{ n: 42 }]);
    await connection.cache.set('socket-test', 'still here');
    expect(await cache.get('socket-test')).toBe('still here');
  } finally {
    await connection.close();
  }
}

describe('the system socket, given bad frames', () => {
  it('closes the connection of a frame V8 cannot deserialize (00 00 00 05 ff 0d 99 42 01) and keeps answering', async () => {
    expect(await sendRaw(Buffer.from('00000005ff0d994201', 'hex'))).toBe('closed');
    await systemAnswers();
  });

  it('closes the connection of a frame longer than the cap as soon as its length arrives, without waiting for the body', async () => {
    expect(await sendRaw(frame(Buffer.alloc(8), MAX_FRAME_BYTES + 1))).toBe('closed');
    expect(await sendRaw(frame(Buffer.alloc(8), 0xffffffff))).toBe('closed');
    await systemAnswers();
  });

  it('closes the connection of well-formed values that are not requests, whatever their shape', async () => {
    const wrongShapes: unknown[] = [
      { id: 1, op: 'query', service: 'notes', sql: 42 },
      { id: 1, op: 'cache', method: 'set', args: 'not a list' },
      { id: 1, op: 'cache', method: 'constructor', args: [] },
      { id: 'one', op: 'begin', service: 'notes' },
      { op: 'drop-everything' },
      null,
      'SELECT 1',
      [1, 2, 3],
    ];
    for (const value of wrongShapes) expect(await sendRaw(frame(serialize(value)))).toBe('closed');
    await systemAnswers();
  });

  it('says in its log why it closed a connection, without the frame itself', () => {
    const reasons = log.lines.filter((line) => line.msg.includes('closed a CLI connection'));
    expect(reasons.length).toBeGreaterThanOrEqual(3);
    expect(log.text()).not.toContain('drop-everything');
  });
});
