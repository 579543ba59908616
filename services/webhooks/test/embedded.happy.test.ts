import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { createMemoryBus, type MemoryBus } from '@acs/bus';
import { SUBSCRIPTION_EVENT_TYPES, SUBSCRIPTION_ROUTING_KEYS } from '@acs/contracts';
import { signedFetch, silentLogger, waitFor } from '@acs/testing';
import { startWebhooksService, webhooksConfigSchema, type WebhooksService } from '../src/index.js';
import { newUserId, Receiver } from './harness.js';

// `npm start` without servers: the webhooks service on the embedded PGlite (its own schema) and the
// in-process bus, so the whole flow works offline. A subscription event becomes subscription.changed.
const SECRET = 'embedded-webhooks-internal-secret-0123456789';
let dataDir: string;
let bus: MemoryBus;
let service: WebhooksService;
let receiver: Receiver;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'acs-webhooks-'));
  bus = createMemoryBus({ exchange: 'acs.events', logger: silentLogger('bus') });
  receiver = await Receiver.start();
  const config = webhooksConfigSchema.parse({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    INTERNAL_SECRET: SECRET,
    WEBHOOKS_SECRET_KEY: 'embedded-webhook-secret-key-0123456789abcdef',
    WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOKS_POLL_INTERVAL_MS: '100',
  });
  service = await startWebhooksService(config, silentLogger('webhooks'), bus);
}, 60_000);
afterAll(async () => {
  await service?.close();
  await bus?.close();
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the webhooks service embedded', () => {
  it('delivers a subscription event as subscription.changed, signed', async () => {
    const userId = newUserId();
    const created = await signedFetch(service.server.url, SECRET, 'POST', '/api/Webhooks', {
      audience: 'webhooks',
      body: { url: receiver.on('/plan', () => 200), events: ['subscription.changed'] },
      context: { keyId: 'k', scopes: ['system:full-access'], userId, role: 0 },
    });
    expect(created.status).toBe(201);
    const { secret } = (await created.json()) as { secret: string };
    const id = randomUUID();
    const occurredAt = new Date().toISOString();
    await bus.publish(SUBSCRIPTION_ROUTING_KEYS.activated, {
      id,
      type: SUBSCRIPTION_EVENT_TYPES.activated,
      occurredAt,
      payload: {
        eventId: id,
        userId,
        subscriptionId: randomUUID(),
        planType: 1,
        status: 'active',
        currentPeriodEnd: new Date(Date.now() + 86_400_000).toISOString(),
        cancelAtPeriodEnd: false,
        sequence: 1,
        occurredAt,
        planId: 'monthly',
      },
    });
    const [request] = await waitFor('the delivery', () => (receiver.at('/plan').length ? receiver.at('/plan') : null));
    expect(new Webhook(secret).verify(request!.body, request!.headers)).toMatchObject({
      type: 'subscription.changed',
      timestamp: occurredAt,
      data: { change: 'activated', planId: 'monthly', status: 'active' },
    });
  });
});
