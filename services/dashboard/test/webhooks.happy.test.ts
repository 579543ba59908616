import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { listenOnLoopback, waitFor } from '@acs/testing';
import { textOf } from './browser.js';
import { registerUser, startDashboardSystem, type DashboardSystem } from './harness.js';

// The Webhooks page (issue 30): add an endpoint (its secret shown once), a key created from the
// dashboard reaches it signed, the delivery log with replay, pause / enable / rotate / delete, and
// the banner of an endpoint disabled after failing deliveries.
let system: DashboardSystem;
let receiver: Server;
let receiverUrl: string;
const received: { headers: Record<string, string>; body: string }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString(),
      });
      res.writeHead(200).end();
    });
  });
  receiverUrl = `http://127.0.0.1:${await listenOnLoopback(receiver)}/hook`;
  system = await startDashboardSystem({ WEBHOOKS_POLL_INTERVAL_MS: '200' });
}, 90_000);
afterAll(async () => {
  await system?.stop();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

const secretOn = (html: string): string | null => /<code id="webhook-secret">([^<]+)<\/code>/.exec(html)?.[1] ?? null;
const endpointIdOn = (html: string): string => /href="\/webhooks\/([0-9a-f-]{36})"/.exec(html)![1]!;

describe('the Webhooks page', () => {
  it('adds an endpoint showing its secret once, delivers a key event to it, logs it and replays it', async () => {
    const browser = system.browser();
    await registerUser(browser);
    const empty = await browser.get('/webhooks');
    expect(empty.status).toBe(200);
    expect(textOf(empty.html)).toContain('No endpoints yet.');

    const refused = await browser.post('/webhooks', { url: receiverUrl, events: [] });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('id="field-url"');
    expect(refused.html).toContain(`value="${receiverUrl}"`);

    const added = await browser.post('/webhooks', { url: receiverUrl, events: ['api_key.created'], description: 'from the dashboard' });
    expect(added.path).toBe('/webhooks');
    const secret = secretOn(added.html);
    expect(secret).toMatch(/^whsec_/);
    expect(secretOn((await browser.get('/webhooks')).html)).toBeNull(); // shown once

    await browser.get('/keys/new');
    expect((await browser.post('/keys', { name: 'hooked', scopes: ['read:devices'], environment: 'live' })).status).toBe(200);
    const [delivery] = await waitFor('the webhook', () => (received.length > 0 ? received : null));
    expect(new Webhook(secret!).verify(delivery!.body, delivery!.headers)).toMatchObject({
      type: 'api_key.created',
      data: { name: 'hooked' },
    });

    const list = await browser.get('/webhooks');
    const id = endpointIdOn(list.html);
    const log = await waitFor('the delivery logged', async () => {
      const page = await browser.get(`/webhooks/${id}`);
      return textOf(page.html).includes('delivered') ? page : null;
    });
    expect(textOf(log.html)).toContain('HTTP 200');
    const deliveryId = delivery!.headers['webhook-id']!;
    const replayed = await browser.post(`/webhooks/${id}/deliveries/${deliveryId}/replay`, {});
    expect(replayed.path).toBe(`/webhooks/${id}`);
    expect(textOf(replayed.html)).toContain('sent again');
    await waitFor('the replay', () => received.length >= 2);
    expect(received[1]!.headers['webhook-id']).toBe(deliveryId);
  });

  it('pauses, enables, rotates and deletes, and shows a banner for an endpoint disabled after failures', async () => {
    const browser = system.browser();
    await registerUser(browser);
    await browser.get('/webhooks');
    const added = await browser.post('/webhooks', { url: `${receiverUrl}?b`, events: ['quota.threshold'] });
    const first = secretOn(added.html)!;
    const id = endpointIdOn(added.html);

    expect(textOf((await browser.post(`/webhooks/${id}/disable`, {})).html)).toContain('Paused');
    expect(textOf((await browser.post(`/webhooks/${id}/enable`, {})).html)).toContain('Enabled');
    const rotated = await browser.post(`/webhooks/${id}/rotate`, {});
    expect(secretOn(rotated.html)).toMatch(/^whsec_/);
    expect(secretOn(rotated.html)).not.toBe(first);
    expect(textOf(rotated.html)).toContain('The new signing secret');

    // As the sender leaves it after a day of failures.
    await system.sut.system.webhooks.db.query(
      "UPDATE endpoints SET enabled = false, disabled_reason = 'Deliveries kept failing for 24 h (last attempt: HTTP 500); fix the endpoint, then enable it again', disabled_at = now() WHERE id = $1",
      [id],
    );
    const warned = await browser.get('/webhooks');
    expect(warned.html).toContain('role="alert"');
    expect(textOf(warned.html)).toContain('A webhook endpoint was disabled');
    expect(textOf(warned.html)).toContain('last attempt: HTTP 500');

    const deleted = await browser.post(`/webhooks/${id}/delete`, {});
    expect(textOf(deleted.html)).toContain('is deleted');
    expect(textOf(deleted.html)).toContain('No endpoints yet.');
    expect((await browser.get(`/webhooks/${id}`)).status).toBe(404);
  });
});
