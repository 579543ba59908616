import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createAmqpBus, subscriptionQueueNames, type AmqpBus, type BusEnvelope } from '@acs/bus';
import {
  API_KEY_EVENT_TYPES,
  API_KEY_EVENTS_BINDING,
  AUDIT_RECORDED_ROUTING_KEY,
  QUOTA_THRESHOLD_ROUTING_KEY,
  apiKeyEventSchema,
  quotaThresholdEventSchema,
  auditRecordedEventSchema,
} from '@acs/contracts';
import { RawBroker, testServerUrl, uniqueName, waitFor } from '@acs/testing';
import { createApiKey, revokeApiKey, rollKey } from '../src/index.js';
import { createUserKey } from '../src/domain/user-keys.js';
import { recordQuotaThresholdEvents } from '../src/events/record-quota-crossings.js';
import { buildKeyInput, silentLogger, startKeys, type KeysHarness } from './harness.js';

// Key events go through keys' outbox to real RabbitMQ, in the transaction of the change.
const exchange = uniqueName('keys_test_ex');
const queue = uniqueName('keys_test_events');
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
    bindings: [API_KEY_EVENTS_BINDING, AUDIT_RECORDED_ROUTING_KEY, QUOTA_THRESHOLD_ROUTING_KEY],
    retryDelaysMs: [50],
    handler: async (message) => void received.push(message),
  });
  keys = await startKeys({ bus, env: { OUTBOX_POLL_INTERVAL_MS: '200' } });
});

afterAll(async () => {
  await keys?.stop();
  await bus?.close();
  await raw?.deleteAll(subscriptionQueueNames(queue, [50]), [exchange]);
  await raw?.close();
});

const eventsOf = (keyId: string) => received.filter((event) => (event.payload as { keyId?: string }).keyId === keyId);
const auditOf = (keyId: string) => received.filter((event) => (event.payload as { targetId?: string }).targetId === keyId);

describe('API key events', () => {
  it('publishes created, rolled and revoked in order, parsed by the contract, without a secret, a hash or the key', async () => {
    const { apiKey, secret } = await createApiKey(keys.deps, buildKeyInput({ scopes: ['read:devices', 'write:devices'] }));
    const rolled = await rollKey(keys.deps, apiKey.id, 60);
    await revokeApiKey(keys.deps, apiKey.id);
    await revokeApiKey(keys.deps, apiKey.id); // a second revocation is no second event
    await waitFor('three events', () => eventsOf(apiKey.id).length >= 3);
    const events = eventsOf(apiKey.id).map((event) => apiKeyEventSchema.parse(event));
    expect(events.map((event) => event.type)).toEqual([
      API_KEY_EVENT_TYPES.created,
      API_KEY_EVENT_TYPES.rolled,
      API_KEY_EVENT_TYPES.revoked,
    ]);
    expect(events[0]!.payload).toMatchObject({
      userId: apiKey.ownerUserId,
      scopes: ['read:devices', 'write:devices'],
      environment: 'live',
    });
    expect(events[1]!.payload.previousSecretEndsAt).toBe(rolled.apiKey.previousSecretEndsAt!.toISOString());
    const sequences = events.map((event) => event.payload.sequence);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
    // The same changes' audit entries, for identity's feed (GET /api/AuditLog).
    await waitFor('three audit entries', () => auditOf(apiKey.id).length >= 3);
    const audit = auditOf(apiKey.id).map((event) => auditRecordedEventSchema.parse(event).payload);
    expect(audit.map((entry) => [entry.service, entry.action])).toEqual([
      ['keys', 'api_key.created'],
      ['keys', 'api_key.rolled'],
      ['keys', 'api_key.revoked'],
    ]);
    const text = JSON.stringify([events, audit]);
    for (const secretish of [secret, rolled.secret, apiKey.secretHash, rolled.apiKey.secretHash, apiKey.key])
      expect(text).not.toContain(secretish);
    // A row is marked sent after the broker's confirm, so the consumer may see an event a moment before.
    const sent = async () =>
      Number(
        (
          await keys.db.query<{ n: string }>('SELECT count(*) AS n FROM outbox WHERE user_id = $1 AND sent_at IS NOT NULL', [
            apiKey.ownerUserId,
          ])
        ).rows[0]!.n,
      );
    await waitFor('the three rows marked sent', async () => (await sent()) === 3);
  });

  it('a change that fails writes no event: the key and its event commit together or not at all', async () => {
    const ownerUserId = 900_000 + Math.floor(Math.random() * 1000);
    const rules = { keysPerUser: 1, rateLimitCeiling: null, maxLifetimeDays: null };
    await createUserKey(keys.deps, ownerUserId, { name: 'only', scopes: 'read:devices', environment: 'live' }, rules);
    await expect(
      createUserKey(keys.deps, ownerUserId, { name: 'one too many', scopes: 'read:devices', environment: 'live' }, rules),
    ).rejects.toMatchObject({
      code: 'key_limit_reached',
    });
    const { rows } = await keys.db.query<{ n: string }>('SELECT count(*) AS n FROM outbox WHERE user_id = $1', [ownerUserId]);
    expect(Number(rows[0]!.n)).toBe(1);
  });
});

describe('quota threshold events (issue 29)', () => {
  it('publishes each crossing the gateways report once, as quota.threshold.v1 parsed by the contract', async () => {
    const userId = 4_000_000 + Math.floor(Math.random() * 1_000_000);
    const crossing = { userId, plan: 'trial', period: 'day' as const, periodStart: '2026-11-26', quota: 6 };
    await keys.deps.db.transaction((tx) =>
      recordQuotaThresholdEvents(tx, [
        { ...crossing, percent: 80 },
        { ...crossing, percent: 100 },
      ]),
    );
    // The same crossings again (another gateway, a retried batch): nothing new.
    expect(await keys.deps.db.transaction((tx) => recordQuotaThresholdEvents(tx, [{ ...crossing, percent: 80 }]))).toBe(0);
    const ofUser = () =>
      received.filter((event) => (event.payload as { userId?: number }).userId === userId && event.type === 'quota.threshold.v1');
    await waitFor('two quota events', () => ofUser().length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 500)); // a duplicate would arrive within a few relay passes
    const events = ofUser().map((event) => quotaThresholdEventSchema.parse(event));
    expect(events.map((event) => event.payload.percent).sort((a, b) => a - b)).toEqual([80, 100]);
    expect(events[0]!.payload).toMatchObject({ plan: 'trial', period: 'day', periodStart: '2026-11-26', quota: 6 });
  });
});
