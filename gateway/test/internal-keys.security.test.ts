import { startFakeUpstream, type FakeUpstream } from '@acs/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { verifyContext } from '@acs/auth';
import { gatewayConfigSchema } from '@acs/gateway';
import { INTERNAL_SECRET, startGatewayHarness, type GatewayHarness } from './harness.js';

// Issue 24.5: the gateway signs for each upstream with that service's own key. The keys service here
// is real and verifies with its key (INTERNAL_SECRET); the catalog has another, which keys never holds.
const CATALOG_KEY = 'catalog-own-internal-key-0123456789abcdefgh';

let h: GatewayHarness;
let catalog: FakeUpstream;

beforeAll(async () => {
  catalog = await startFakeUpstream();
  h = await startGatewayHarness(
    { CATALOG_URL: catalog.url },
    { INTERNAL_SECRET_KEYS: INTERNAL_SECRET, INTERNAL_SECRET_CATALOG: CATALOG_KEY },
  );
});
afterAll(async () => {
  await h.close();
  await catalog.close();
});

describe('per-upstream internal keys', () => {
  it("signs a catalog request with the catalog's key only, while the keys service verifies its lookups with its own", async () => {
    const reader = await h.createKey(['read:devices']);
    // The key lookup behind this call went to the real keys service, signed with its key: else no 200.
    expect((await h.call('GET', '/api/Dac?page=1', reader)).status).toBe(200);
    const seen = catalog.received.at(-1)!;
    const verify = (key: string) =>
      verifyContext(key, 'catalog', 'GET', seen.url, seen.headers['x-acs-context'] as string, seen.headers['x-acs-signature'] as string);
    expect(verify(CATALOG_KEY)).toMatchObject({ keyId: reader.id });
    // What the keys service holds cannot produce or check a catalog context.
    expect(verify(INTERNAL_SECRET)).toBeNull();
  });

  it('refuses to start with an upstream that has no key, naming the variable', () => {
    const result = gatewayConfigSchema.safeParse({
      KEYS_URL: 'http://keys:8081',
      INTERNAL_SECRET_KEYS: 'k'.repeat(32),
      CATALOG_URL: 'http://catalog:8082',
    });
    expect(result.success).toBe(false);
    expect(result.error!.issues).toContainEqual(
      expect.objectContaining({
        path: ['INTERNAL_SECRET_CATALOG'],
        message: expect.stringMatching(/INTERNAL_SECRET_CATALOG is required when CATALOG_URL is set/),
      }),
    );
    expect(gatewayConfigSchema.safeParse({ KEYS_URL: 'http://keys:8081', INTERNAL_SECRET_KEYS: 'k'.repeat(32) }).success).toBe(true);
  });
});
