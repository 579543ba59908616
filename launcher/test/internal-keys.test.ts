import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveInternalKeys, loadOrCreateInternalKeys, webhookKeySettings } from '../src/internal-secret.js';

describe("npm start's internal keys: one per service", () => {
  it('makes a different key for every service, kept 0600 under DATA_DIR and the same on the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acs-internal-keys-'));
    try {
      const keys = await loadOrCreateInternalKeys(dir);
      expect(Object.keys(keys).sort()).toEqual(['billing', 'catalog', 'device', 'deviceToCatalog', 'identity', 'keys', 'webhooks']);
      expect(new Set(Object.values(keys)).size).toBe(7);
      expect(statSync(join(dir, 'internal-keys.json')).mode & 0o777).toBe(0o600);
      expect(await loadOrCreateInternalKeys(dir)).toEqual(keys);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the keys of a data folder made before a service was added, and adds the new one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acs-internal-keys-'));
    try {
      const { webhooks: _new, ...older } = await loadOrCreateInternalKeys(dir);
      writeFileSync(join(dir, 'internal-keys.json'), JSON.stringify(older), { mode: 0o600 });
      const keys = await loadOrCreateInternalKeys(dir);
      expect(keys).toMatchObject(older);
      expect(keys.webhooks).toEqual(expect.any(String));
      expect(Object.values(older)).not.toContain(keys.webhooks);
      expect(await loadOrCreateInternalKeys(dir)).toEqual(keys);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('derives them from INTERNAL_SECRET when it is given: distinct, none equal to it, stable', () => {
    const master = 'm'.repeat(40);
    const keys = deriveInternalKeys(master);
    expect(new Set([...Object.values(keys), master]).size).toBe(8);
    expect(deriveInternalKeys(master)).toEqual(keys);
    expect(deriveInternalKeys('n'.repeat(40)).catalog).not.toBe(keys.catalog);
  });
});

describe("npm start's webhooks keys", () => {
  const keys = deriveInternalKeys('a-shared-internal-secret-for-these-tests-0123');
  const derived = webhookKeySettings({}, keys).WEBHOOKS_SECRET_KEY;
  const own = 'an-operator-chosen-webhooks-key-0123456789abcdef';

  it('seals under a key derived from the data folder when the environment names none, with nothing previous', () => {
    expect(webhookKeySettings({}, keys)).toEqual({ WEBHOOKS_SECRET_KEY: derived, WEBHOOKS_SECRET_KEY_PREVIOUS: undefined });
    expect(derived).toHaveLength(43);
    expect(webhookKeySettings({}, deriveInternalKeys('another-shared-internal-secret-0123456789')).WEBHOOKS_SECRET_KEY).not.toBe(derived);
  });

  it('keeps the derived key readable once the environment names a key of its own, so earlier endpoints keep signing', () => {
    expect(webhookKeySettings({ WEBHOOKS_SECRET_KEY: own }, keys)).toEqual({
      WEBHOOKS_SECRET_KEY: own,
      WEBHOOKS_SECRET_KEY_PREVIOUS: derived,
    });
    // The derived key named explicitly is no rotation.
    expect(webhookKeySettings({ WEBHOOKS_SECRET_KEY: derived }, keys)).toEqual({
      WEBHOOKS_SECRET_KEY: derived,
      WEBHOOKS_SECRET_KEY_PREVIOUS: undefined,
    });
  });

  it("keeps the derived key readable after an operator's own rotations too, last in the list", () => {
    const older = 'the-key-before-the-operator-rotated-0123456789';
    expect(webhookKeySettings({ WEBHOOKS_SECRET_KEY: own, WEBHOOKS_SECRET_KEY_PREVIOUS: older }, keys)).toEqual({
      WEBHOOKS_SECRET_KEY: own,
      WEBHOOKS_SECRET_KEY_PREVIOUS: `${older},${derived}`,
    });
    // Named by the operator already (or current again): not twice.
    expect(webhookKeySettings({ WEBHOOKS_SECRET_KEY: own, WEBHOOKS_SECRET_KEY_PREVIOUS: `${derived}, ${older}` }, keys)).toEqual({
      WEBHOOKS_SECRET_KEY: own,
      WEBHOOKS_SECRET_KEY_PREVIOUS: `${derived}, ${older}`,
    });
    expect(webhookKeySettings({ WEBHOOKS_SECRET_KEY: derived, WEBHOOKS_SECRET_KEY_PREVIOUS: older }, keys)).toEqual({
      WEBHOOKS_SECRET_KEY: derived,
      WEBHOOKS_SECRET_KEY_PREVIOUS: older,
    });
  });
});
