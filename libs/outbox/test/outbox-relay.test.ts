import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createMemoryBus, type Bus, type BusEnvelope, type MemoryBus } from '@acs/bus';
import { openDatabase, type Db } from '@acs/db';
import { createTestDatabase, silentLogger, sleep, waitFor, type TestDatabase } from '@acs/testing';
import {
  defineOutboxTable,
  insertOutboxEvent,
  outboxEnvelope,
  pendingOutbox,
  startOutboxRelay,
  type OutboxRelay,
  type OutboxRow,
  type OutboxTable,
} from '../src/index.js';

// The columns every service's outbox migration creates (billing 001+002, keys 007_outbox.sql).
const tableSql = (name: string) => `CREATE TABLE ${name} (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, event_id uuid NOT NULL UNIQUE, user_id bigint,
  type text NOT NULL, routing_key text NOT NULL, payload jsonb NOT NULL, occurred_at timestamptz NOT NULL,
  sent_at timestamptz, attempts integer NOT NULL DEFAULT 0, last_error text, trace_context jsonb);
  CREATE INDEX ${name}_unsent_idx ON ${name} (id) WHERE sent_at IS NULL;`;

const A = defineOutboxTable('a_outbox', 901);
const B = defineOutboxTable('b_outbox', 902);
const toEnvelope = (row: OutboxRow): BusEnvelope => outboxEnvelope(row, true);

let database: TestDatabase;
let db: Db;
let relays: OutboxRelay[] = [];

beforeAll(async () => {
  database = await createTestDatabase('outbox_lib');
  db = await openDatabase({ url: database.url, logger: silentLogger() });
  await db.query(tableSql(A.name));
  await db.query(tableSql(B.name));
});
afterEach(async () => {
  await Promise.all(relays.map((relay) => relay.close()));
  relays = [];
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

function write(table: OutboxTable, n: number, userId: number | null = 1): Promise<number[]> {
  return db.transaction(async (tx) => {
    const ids: number[] = [];
    for (let i = 0; i < n; i += 1)
      ids.push(
        await insertOutboxEvent(tx, table, {
          eventId: randomUUID(),
          userId,
          type: 'thing.happened.v1',
          routingKey: 'thing.happened',
          payload: { n: i },
          occurredAt: new Date(),
          traceContext: null,
        }),
      );
    return ids;
  });
}

function start(table: OutboxTable, bus: Bus, batchSize = 100): OutboxRelay {
  const relay = startOutboxRelay({
    db,
    bus,
    logger: silentLogger(),
    table,
    toEnvelope,
    pollIntervalMs: 50,
    retryMinMs: 20,
    retryMaxMs: 40,
    batchSize,
  });
  relays.push(relay);
  return relay;
}

async function collect(bus: MemoryBus, queue: string): Promise<BusEnvelope[]> {
  const received: BusEnvelope[] = [];
  await bus.subscribe({ queue, bindings: ['thing.*'], handler: async (message) => void received.push(message) });
  return received;
}

describe('the outbox relay', () => {
  it('publishes a table in id order across several batches and marks every row sent', async () => {
    const bus = createMemoryBus();
    const received = await collect(bus, 'order');
    const ids = await write(A, 7);
    start(A, bus, 3);
    await waitFor('seven events', () => received.length >= 7);
    expect(received.map((m) => (m.payload as { sequence: number }).sequence)).toEqual(ids);
    expect(await pendingOutbox(db, A)).toEqual({ count: 0, oldestAgeSeconds: 0 });
    await bus.close();
  });

  it('keeps rows unsent with attempts and the error while the bus fails, then publishes them in order', async () => {
    const bus = createMemoryBus();
    const received = await collect(bus, 'flaky');
    let down = true;
    const flaky: Bus = { ...bus, publish: (key, message) => (down ? Promise.reject(new Error('broker away')) : bus.publish(key, message)) };
    const ids = await write(A, 3, null);
    const relay = start(A, flaky);
    await waitFor('a failed pass', () => relay.failures >= 2);
    const { rows } = await db.query<{ attempts: number; last_error: string | null }>(
      `SELECT attempts, last_error FROM ${A.name} WHERE id = $1`,
      [ids[0]],
    );
    expect(rows[0]!.attempts).toBeGreaterThanOrEqual(2);
    expect(rows[0]!.last_error).toContain('broker away');
    expect((await pendingOutbox(db, A)).count).toBe(3);
    down = false;
    await waitFor('three events', () => received.length >= 3);
    expect(received.map((m) => (m.payload as { sequence: number }).sequence)).toEqual(ids);
    await waitFor('the relay back to no failures', () => relay.failures === 0);
    await bus.close();
  });

  it('relays each table on its own: one table failing does not hold the other back', async () => {
    const bus = createMemoryBus();
    const received = await collect(bus, 'tables');
    const broken: Bus = { ...bus, publish: () => Promise.reject(new Error('never')) };
    await write(A, 1);
    const [fromB] = await write(B, 1);
    const relayA = start(A, broken);
    start(B, bus);
    await waitFor('the event of table b', () => received.length >= 1);
    expect((received[0]!.payload as { sequence: number }).sequence).toBe(fromB);
    await waitFor('table a backing off', () => relayA.failures >= 1);
    expect((await pendingOutbox(db, A)).count).toBe(1);
    await db.query(`UPDATE ${A.name} SET sent_at = now()`);
    await bus.close();
  });

  it('a wake publishes at once rather than at the next poll', async () => {
    const bus = createMemoryBus();
    const received = await collect(bus, 'wake');
    const relay = startOutboxRelay({
      db,
      bus,
      logger: silentLogger(),
      table: B,
      toEnvelope,
      pollIntervalMs: 60_000,
      retryMinMs: 20,
      retryMaxMs: 40,
    });
    relays.push(relay);
    await sleep(100); // the first pass has run and the next poll is a minute away
    await write(B, 1);
    relay.wake();
    await waitFor('the woken event', () => received.length >= 1, 2_000);
    await bus.close();
  });
});
