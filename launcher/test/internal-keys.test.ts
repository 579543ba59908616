import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveInternalKeys, loadOrCreateInternalKeys } from '../src/internal-secret.js';

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
