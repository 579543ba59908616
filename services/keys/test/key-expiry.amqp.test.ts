import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createAmqpBus, subscriptionQueueNames, type AmqpBus, type BusEnvelope } from '@acs/bus';
import { API_KEY_EVENTS_BINDING, AUDIT_RECORDED_ROUTING_KEY, apiKeyEventSchema, auditRecordedEventSchema } from '@acs/contracts';
import { RawBroker, testServerUrl, uniqueName, waitFor } from '@acs/testing';
import { createApiKey, revokeApiKey, rollKey } from '../src/index.js';
import { sweepKeyExpiry } from '../src/domain/expiry-sweep.js';
import { claimDueReminders } from '../src/data-access/expiry-reminders-repository.js';
import { buildKeyInput, silentLogger, startKeys, type KeysHarness } from './harness.js';

// The expiry sweep (issue 30): reminders through keys' outbox to real RabbitMQ, each once per key and threshold.
const exchange = uniqueName('keys_expiry_ex');
const queue = uniqueName('keys_expiry_events');
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
let raw: RawBroker;
let bus: AmqpBus;
let keys: KeysHarness;
const received: BusEnvelope[] = [];

beforeAll(async () => {
  raw = await RawBroker.open();
  bus = createAmqpBus({ url: testServerUrl('AMQP_URL'), exchange, logger: silentLogger() });
  await waitFor('a connection to RabbitMQ', () => bus.ready(), 5_000);
  await bus.subscribe({
    queue,
    bindings: [API_KEY_EVENTS_BINDING, AUDIT_RECORDED_ROUTING_KEY],
    retryDelaysMs: [50],
    handler: async (message) => void received.push(message),
  });
  // The service's own sweep runs once at start and not again during the test. Its first pass is waited
  // for: on a busy machine it can still be running when the first keys are created, and claim them.
  keys = await startKeys({ bus, env: { OUTBOX_POLL_INTERVAL_MS: '100', KEY_EXPIRY_SWEEP_SECONDS: '86400' } });
  await keys.service.expirySweep.settled();
});

afterAll(async () => {
  await keys?.stop();
  await bus?.close();
  await raw?.deleteAll(subscriptionQueueNames(queue, [50]), [exchange]);
  await raw?.close();
});

const reminderTypes = new Set(['api_key.expiring.v1', 'api_key.expired.v1']);
const remindersOf = (keyId: string) =>
  received
    .filter((event) => reminderTypes.has(event.type) && (event.payload as { keyId?: string }).keyId === keyId)
    .map((event) => apiKeyEventSchema.parse(event));
const auditOf = (keyId: string, action: string) =>
  received
    .filter((event) => event.type.startsWith('audit.recorded'))
    .map((event) => auditRecordedEventSchema.parse(event).payload)
    .filter((entry) => entry.targetId === keyId && entry.action === action);
const summary = (keyId: string) => remindersOf(keyId).map((event) => [event.type, event.payload.daysAhead ?? null]);

async function keyExpiringIn(ms: number): Promise<string> {
  const { apiKey } = await createApiKey(keys.deps, buildKeyInput({ expiresAt: new Date(Date.now() + ms) }));
  return apiKey.id;
}

/** A key that expired an hour ago (no caller may create one: the expiry is moved back directly). */
async function expiredKey(): Promise<string> {
  const id = await keyExpiringIn(40 * DAY_MS);
  await keys.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 hour' WHERE id = $1`, [id]);
  return id;
}

/** Long enough for a duplicate to reach the queue: several relay passes. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 800));

describe('the expiry sweep', () => {
  it('sends the nearest reminder due (30, 7, 1 days ahead) or expired, once per key, however often it runs', async () => {
    const in29Days = await keyExpiringIn(29 * DAY_MS);
    const in6Days = await keyExpiringIn(6 * DAY_MS);
    const in12Hours = await keyExpiringIn(12 * HOUR_MS);
    const expired = await expiredKey();
    const in40Days = await keyExpiringIn(40 * DAY_MS);
    const revoked = await keyExpiringIn(3 * DAY_MS);
    await revokeApiKey(keys.deps, revoked);
    const rolled = await keyExpiringIn(5 * DAY_MS);
    await rollKey(keys.deps, rolled, 0);

    expect(await sweepKeyExpiry(keys.deps)).toBe(5);
    expect(await sweepKeyExpiry(keys.deps)).toBe(0);
    await waitFor('five reminders', () => [in29Days, in6Days, in12Hours, expired, rolled].every((id) => remindersOf(id).length >= 1));
    await waitFor('the expiry audit entry', () => auditOf(expired, 'api_key.expired').length >= 1);
    await settle();

    expect(summary(in29Days)).toEqual([['api_key.expiring.v1', 30]]);
    expect(summary(in6Days)).toEqual([['api_key.expiring.v1', 7]]);
    expect(summary(in12Hours)).toEqual([['api_key.expiring.v1', 1]]);
    expect(summary(expired)).toEqual([['api_key.expired.v1', null]]);
    // Rolling gives the key a new secret, not a new expiry: its reminder still comes.
    expect(summary(rolled)).toEqual([['api_key.expiring.v1', 7]]);
    expect(summary(in40Days)).toEqual([]);
    expect(summary(revoked)).toEqual([]);
    const [entry, ...more] = auditOf(expired, 'api_key.expired');
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ service: 'keys', actor: { type: 'system', id: 'keys expiry sweep' } });
    // Only expiry has an audit entry: a reminder changes nothing.
    expect(auditOf(in29Days, 'api_key.expired')).toEqual([]);
  });

  it('sends the next threshold when the key reaches it, and reminders for a new expiry date', async () => {
    const id = await keyExpiringIn(10 * DAY_MS);
    await sweepKeyExpiry(keys.deps);
    // A day later it is 9 days away: nothing new for it; 8 days later it is 2 days away: the 7-day reminder.
    await sweepKeyExpiry(keys.deps, new Date(Date.now() + DAY_MS));
    await sweepKeyExpiry(keys.deps, new Date(Date.now() + 8 * DAY_MS));
    // The expiry moves 20 days on (no endpoint does this yet; the reminder rows are keyed by the date).
    await keys.db.query(`UPDATE api_keys SET expires_at = expires_at + interval '20 days' WHERE id = $1`, [id]);
    await sweepKeyExpiry(keys.deps);
    await waitFor('three reminders', () => remindersOf(id).length >= 3);
    await settle();
    expect(summary(id)).toEqual([
      ['api_key.expiring.v1', 30],
      ['api_key.expiring.v1', 7],
      ['api_key.expiring.v1', 30],
    ]);
  });

  it('two sweeps at once (two replicas) send each reminder once', async () => {
    const ids = await Promise.all([1, 2, 3, 4, 5, 6].map((days) => keyExpiringIn(days * DAY_MS - HOUR_MS)));
    // Each sweep on its own connection, as two replicas would.
    const [a, b] = await Promise.all([sweepKeyExpiry(keys.deps), sweepKeyExpiry(keys.deps)]);
    expect(a + b).toBe(6);
    await waitFor('six reminders', () => ids.every((id) => remindersOf(id).length >= 1));
    await settle();
    for (const id of ids) expect(remindersOf(id)).toHaveLength(1);
  });

  it('without the sweep lock, the reminder rows alone make two concurrent claims record each reminder once', async () => {
    const ids = await Promise.all([2, 3, 4].map((days) => keyExpiringIn(days * DAY_MS)));
    // Two transactions claim at once and hold their claims a moment before committing: the second waits
    // on the first's rows and, once they commit, finds them taken.
    const claim = () =>
      keys.db.transaction(async (tx) => {
        const claimed = await claimDueReminders(tx, new Date(), 7, 100);
        await new Promise((resolve) => setTimeout(resolve, 300));
        return claimed.filter((reminder) => ids.includes(reminder.keyId)).length;
      });
    const [a, b] = await Promise.all([claim(), claim()]);
    expect([a, b].sort()).toEqual([0, 3]);
    const { rows } = await keys.db.query<{ n: string }>(`SELECT count(*) AS n FROM key_expiry_reminders WHERE key_id = ANY($1::uuid[])`, [
      ids,
    ]);
    expect(Number(rows[0]!.n)).toBe(3);
  });
});
