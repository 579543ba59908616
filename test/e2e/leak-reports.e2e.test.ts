import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createAmqpBus, subscriptionQueueNames, type AmqpBus, type BusEnvelope } from '@acs/bus';
import {
  API_KEY_EVENT_TYPES,
  API_KEY_EVENTS_BINDING,
  SECRET_SCANNING_REPORT_PATH,
  apiKeyCreatedResponseSchema,
  apiKeyListResponseSchema,
  auditLogResponseSchema,
} from '@acs/contracts';
import { createLogger } from '@acs/logger';
import { RawBroker, cliRunner, testServerUrl, uniqueName, waitFor } from '@acs/testing';
import type { ServiceProcess } from '../../bench/src/processes.js';
import { appKey, bearer, json, newUser, type Auth, type User } from './actors.js';
import { startSecondGateway } from './second-gateway.js';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';

// Issue 31, item 2: a signed secret-scanning report (GitHub's partner format) revokes the keys it names on
// every gateway at their next request, with an api_key.exposed event on the bus and an audit entry; an
// unsigned or badly signed one changes nothing. Real PostgreSQL, Redis and RabbitMQ, two gateway processes.
const KEY_ID = 'e2e-scanner-key-1';
const scanner = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const stranger = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const exchange = uniqueName('leaks_e2e');
const queue = uniqueName('leaks_e2e_events');
const { buildCli, runCli } = cliRunner('services/keys');

let sut: SystemUnderTest;
let second: ServiceProcess;
let app: Auth;
let dashboard: Auth;
let raw: RawBroker;
let bus: AmqpBus;
const received: BusEnvelope[] = [];

beforeAll(async () => {
  const publicKeys = [{ key_identifier: KEY_ID, key: scanner.publicKey.export({ type: 'spki', format: 'pem' }) }];
  sut = await startSystemUnderTest({
    AMQP_URL: testServerUrl('AMQP_URL'),
    BUS_EXCHANGE: exchange,
    OUTBOX_POLL_INTERVAL_MS: '200',
    SECRET_SCANNING_PUBLIC_KEYS: JSON.stringify(publicKeys),
  });
  second = await startSecondGateway(sut);
  app = await appKey(sut, ['auth:register', 'auth:login']);
  dashboard = await appKey(sut, ['system:full-access']);
  raw = await RawBroker.open();
  bus = createAmqpBus({ url: testServerUrl('AMQP_URL'), exchange, logger: createLogger({ name: 'e2e', level: 'silent' }) });
  await waitFor('a connection to RabbitMQ', () => bus.ready(), 5_000);
  await bus.subscribe({ queue, bindings: [API_KEY_EVENTS_BINDING], retryDelaysMs: [50], handler: async (m) => void received.push(m) });
  await buildCli();
}, 180_000);
afterAll(async () => {
  await second?.stop();
  await sut?.stop();
  await bus?.close();
  await raw?.deleteAll(subscriptionQueueNames(queue, [50]), [exchange]);
  await raw?.close();
});

async function userKey(user: User): Promise<Auth & { id: string }> {
  const res = await sut.call('POST', '/api/ApiKeys', dashboard, bearer(user.token, json({ name: 'leaky', scopes: 'read:devices' })));
  expect(res.status).toBe(201);
  const created = apiKeyCreatedResponseSchema.parse(await res.json());
  return { id: created.id, key: created.key, secret: created.secret };
}

const report = (tokens: string[]): string =>
  JSON.stringify(
    tokens.map((token) => ({ token, type: 'acs_api_secret', url: 'https://github.com/octo/app/blob/abc/.env', source: 'content' })),
  );

function postReport(body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(sut.url + SECRET_SCANNING_REPORT_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

const signed = (body: string, key = scanner.privateKey, keyId = KEY_ID): Record<string, string> => ({
  'Github-Public-Key-Identifier': keyId,
  'Github-Public-Key-Signature': sign('sha256', Buffer.from(body), key).toString('base64'),
});

/** The key's answer on each gateway: its status and error code. */
async function onBothGateways(auth: Auth): Promise<[number, string | undefined][]> {
  const headers = { 'x-api-key': auth.key, 'x-api-secret': auth.secret };
  return Promise.all(
    [sut.url, second.url].map(async (url) => {
      const res = await fetch(`${url}/api/Dac?pageSize=1`, { headers });
      const body = (await res.json()) as { code?: string };
      return [res.status, res.status === 200 ? undefined : body.code] as [number, string | undefined];
    }),
  );
}

async function viewOf(user: User, keyId: string) {
  const list = apiKeyListResponseSchema.parse(await (await sut.call('GET', '/api/ApiKeys', dashboard, bearer(user.token))).json());
  return list.items.find((item) => item.id === keyId)!;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('leak reports (POST /secret-scanning/github, no API key)', () => {
  it('a signed report revokes the key on both gateways at the next request, answers the labels, and sends api_key.exposed with an audit entry', async () => {
    const user = await newUser(sut, app);
    const key = await userKey(user);
    expect(await onBothGateways(key)).toEqual([
      [200, undefined],
      [200, undefined],
    ]);

    const body = report([key.secret, 'not-a-secret-of-ours']);
    const res = await postReport(body, signed(body));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { token_hash: sha256(key.secret), token_type: 'acs_api_secret', label: 'true_positive' },
      { token_hash: sha256('not-a-secret-of-ours'), token_type: 'acs_api_secret', label: 'false_positive' },
    ]);

    expect(await onBothGateways(key)).toEqual([
      [401, 'invalid_credentials'],
      [401, 'invalid_credentials'],
    ]);
    const view = await viewOf(user, key.id);
    expect(view).toMatchObject({ revokedReason: 'exposed', revokedAt: expect.any(String), exposedAt: expect.any(String) });

    await waitFor('the exposed event', () =>
      received.some((e) => e.type === API_KEY_EVENT_TYPES.exposed && (e.payload as { keyId: string }).keyId === key.id),
    );
    const event = received.find((e) => e.type === API_KEY_EVENT_TYPES.exposed && (e.payload as { keyId: string }).keyId === key.id)!;
    expect(event.payload).toMatchObject({
      userId: user.id,
      exposure: { source: 'secret_scanning', url: 'https://github.com/octo/app/blob/abc/.env' },
    });
    expect(JSON.stringify(event)).not.toContain(key.secret);

    let entries: ReturnType<typeof auditLogResponseSchema.parse>['items'] = [];
    await waitFor('the audit entry', async () => {
      const trail = await sut.call('GET', `/api/AuditLog?action=api_key.exposed&targetId=${key.id}`, dashboard, bearer(user.token));
      entries = auditLogResponseSchema.parse(await trail.json()).items;
      return entries.length === 1;
    });
    expect(entries[0]!.actor).toMatchObject({ type: 'system', id: 'secret_scanning' });
    expect(JSON.stringify(entries)).not.toContain(key.secret);

    // The same report again: the same labels, nothing recorded twice.
    expect((await postReport(body, signed(body))).status).toBe(200);
  });

  it('a replaced secret still in its grace period names its key too', async () => {
    const user = await newUser(sut, app);
    const key = await userKey(user);
    const rolled = await sut.call('POST', `/api/ApiKeys/${key.id}/roll`, dashboard, bearer(user.token, json({ graceSeconds: 3600 })));
    expect(rolled.status).toBe(200);
    const fresh = { key: key.key, secret: ((await rolled.json()) as { secret: string }).secret };
    const body = report([key.secret]);
    expect(await (await postReport(body, signed(body))).json()).toEqual([expect.objectContaining({ label: 'true_positive' })]);
    expect(await onBothGateways(fresh)).toEqual([
      [401, 'invalid_credentials'],
      [401, 'invalid_credentials'],
    ]);
  });

  it('unsigned, badly signed, or signed by an unknown key: refused, and nothing changes', async () => {
    const user = await newUser(sut, app);
    const key = await userKey(user);
    const body = report([key.secret]);
    const refusals: [Record<string, string>, number, string][] = [
      [{}, 400, 'signature_missing'],
      [signed(body, stranger.privateKey), 401, 'invalid_signature'],
      [{ ...signed(body), 'Github-Public-Key-Signature': Buffer.from('not a signature').toString('base64') }, 401, 'invalid_signature'],
      [signed(report(['something else'])), 401, 'invalid_signature'],
      [signed(body, scanner.privateKey, 'unknown-key'), 401, 'unknown_signing_key'],
    ];
    for (const [headers, status, code] of refusals) {
      const res = await postReport(body, headers);
      expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([status, code]);
    }
    expect(await onBothGateways(key)).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
    expect(await viewOf(user, key.id)).toMatchObject({ revokedAt: null, revokedReason: null, exposedAt: null });
  });

  it('a report over 1000 secrets is 400, and the body is capped at 1 MiB (413)', async () => {
    const many = report(Array.from({ length: 1001 }, (_, i) => `t${i}`));
    expect((await postReport(many, signed(many))).status).toBe(400);
    const huge = 'x'.repeat(1024 * 1024 + 1);
    expect((await postReport(huge, signed(huge))).status).toBe(413);
  });

  it('npm run keys -- report-leak <secret>: revokes the key on both gateways, with the same event', async () => {
    const user = await newUser(sut, app);
    const key = await userKey(user);
    const env = { DATABASE_URL: sut.env.DATABASE_URL, REDIS_URL: sut.env.REDIS_URL, REDIS_PREFIX: sut.redisPrefix, LOG_LEVEL: 'error' };
    const result = await runCli(['report-leak', key.secret, '--url', 'https://example.com/paste'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${key.id}: revoked now (exposed)`);
    expect(result.stdout).not.toContain(key.secret);
    expect(await onBothGateways(key)).toEqual([
      [401, 'invalid_credentials'],
      [401, 'invalid_credentials'],
    ]);
    await waitFor('the exposed event', () =>
      received.some((e) => e.type === API_KEY_EVENT_TYPES.exposed && (e.payload as { keyId: string }).keyId === key.id),
    );
    const event = received.find((e) => (e.payload as { keyId: string }).keyId === key.id && e.type === API_KEY_EVENT_TYPES.exposed)!;
    expect(event.payload).toMatchObject({ exposure: { source: 'operator', url: 'https://example.com/paste' } });
    const unknown = await runCli(['report-leak', 'no-key-has-this-secret'], env);
    expect([unknown.code, unknown.stdout.trim()]).toEqual([0, 'No key has this secret (current or replaced): nothing changed.']);
  });
});
