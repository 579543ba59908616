import { Router, parseInput, readJsonBody, type AppState } from '@acs/http';
import { KEY_LOOKUP_PATH, KEY_USAGE_PATH, keyLookupRequestSchema, keyUsageRequestSchema, type KeyLookupResponse } from '@acs/contracts';
import { recordKeyUsage } from '../data-access/api-keys-repository.js';
import { addDailyUsage } from '../data-access/usage-repository.js';
import type { KeysDeps } from '../domain/deps.js';
import { lookupApiKeyForGateway } from '../domain/lookup-key.js';

/** Routes only the gateway calls (they are in no public route table). */
export function internalRoutes(deps: KeysDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.post(KEY_LOOKUP_PATH, async (ctx) => {
    const { key } = parseInput(keyLookupRequestSchema, await readJsonBody(ctx), 'body');
    const response: KeyLookupResponse = { record: await lookupApiKeyForGateway(deps, key) };
    ctx.body = response;
  });
  // Batches of lastUsedAt and of request counts per key, day and status class from the gateways
  // (one call every few seconds per gateway, not one per request).
  router.post(KEY_USAGE_PATH, async (ctx) => {
    const { usage, counts } = parseInput(keyUsageRequestSchema, await readJsonBody(ctx, 32 * 1024 * 1024), 'body');
    const updated = await recordKeyUsage(deps.db, usage);
    if (counts) await addDailyUsage(deps.db, counts);
    ctx.body = { updated };
  });
  return router;
}
