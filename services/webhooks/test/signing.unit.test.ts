import { describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_SECRET_PATTERN } from '@acs/contracts';
import { newWebhookSecret, webhookHeaders } from '../src/domain/signing.js';
import { secretBox } from '../src/domain/secret-box.js';
import { liveSecrets } from '../src/delivery/sender.js';
import type { ClaimedDelivery } from '../src/data-access/claim-due.js';

// Our signing is checked by the reference library, not by our own code.
const now = () => Math.floor(Date.now() / 1000);

describe('webhook signing', () => {
  it('makes secrets of the whsec_ form', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(WEBHOOK_SECRET_PATTERN);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('signs so that standardwebhooks verifies the body and headers', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'api_key.created', timestamp: new Date().toISOString(), data: { keyId: 'k' } });
    const headers = webhookHeaders([secret], 'msg_1', now(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('is refused by standardwebhooks for another secret, a changed body or another id', () => {
    const secret = newWebhookSecret();
    const body = '{"type":"api_key.revoked","timestamp":"2026-01-01T00:00:00Z","data":{}}';
    const headers = webhookHeaders([secret], 'msg_2', now(), body);
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('revoked', 'created'), headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_3' })).toThrow();
  });

  it('carries one signature per live secret, and either secret verifies (a rotation)', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const body = '{"type":"quota.threshold","timestamp":"2026-01-01T00:00:00Z","data":{"percent":80}}';
    const headers = webhookHeaders([current, previous], 'msg_4', now(), body);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });
});

describe('secretBox', () => {
  it('opens what it sealed, and refuses another key or an altered box', () => {
    const box = secretBox('a-key-of-the-deployment-0123456789abcdef');
    const secret = newWebhookSecret();
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed)).toBe(secret);
    expect(box.seal(secret)).not.toBe(sealed); // a fresh IV each time
    expect(() => secretBox('another-key-0123456789abcdef0123456789').open(sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('x'.repeat(10)).toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    // tryOpen: the same answers, null where open throws.
    expect(box.tryOpen(sealed)).toBe(secret);
    expect(box.tryOpen(parts.join('.'))).toBeNull();
    expect(secretBox('another-key-0123456789abcdef0123456789').tryOpen(sealed)).toBeNull();
    expect(box.tryOpen('not-a-box')).toBeNull();
  });

  it('during a key rotation opens boxes of the current or the previous key, seals under the current one only', () => {
    const [oldKey, newKey, otherKey] = [
      'old-key-of-the-deployment-0123456789abcdef',
      'new-key-of-the-deployment-0123456789abcdef',
      'x'.repeat(40),
    ];
    const secret = newWebhookSecret();
    const underOld = secretBox(oldKey).seal(secret);
    const rotating = secretBox(newKey, [oldKey]);
    expect(rotating.open(underOld)).toBe(secret);
    expect(rotating.open(secretBox(newKey).seal(secret))).toBe(secret);
    // What it seals the new key alone opens, the old one does not: nothing new lands under the old key.
    const sealed = rotating.seal(secret);
    expect(secretBox(newKey).open(sealed)).toBe(secret);
    expect(() => secretBox(oldKey).open(sealed)).toThrow();
    // A box of neither key still throws, and says nothing of the keys or the box.
    const foreign = secretBox(otherKey).seal(secret);
    let message = '';
    try {
      rotating.open(foreign);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/fits none of the keys/);
    for (const leaked of [oldKey, newKey, otherKey, foreign.split('.')[3]!]) expect(message).not.toContain(leaked);
    expect(() => rotating.open('v2.a.b.c')).toThrow('not a sealed webhook secret');
  });
});

describe('the secrets an attempt signs with', () => {
  const box = secretBox('current-webhooks-secret-key-0123456789abcdef');
  const foreign = secretBox('some-other-webhooks-secret-key-0123456789abcdef');
  const later = new Date(Date.now() + 3600_000);
  const delivery = (previousSecretBox: string | null) =>
    ({ secretBox: box.seal('whsec_current'), previousSecretBox, previousSecretEndsAt: later }) as unknown as ClaimedDelivery;

  it('are the current secret and, until it ends, the one a rotation replaced', () => {
    expect(liveSecrets(box, delivery(box.seal('whsec_previous')), new Date())).toEqual(['whsec_current', 'whsec_previous']);
    expect(liveSecrets(box, delivery(box.seal('whsec_previous')), new Date(later.getTime() + 1))).toEqual(['whsec_current']);
  });

  it('leave out a previous secret no key opens, instead of failing every attempt', () => {
    expect(liveSecrets(box, delivery(foreign.seal('whsec_lost')), new Date())).toEqual(['whsec_current']);
  });

  it('still fail when the current secret cannot be opened', () => {
    const unreadable = { ...delivery(null), secretBox: foreign.seal('whsec_current') } as ClaimedDelivery;
    expect(() => liveSecrets(box, unreadable, new Date())).toThrow();
  });
});
