import { Router, parseInput, readJsonBody, type AppState } from '@acs/http';
import { KEY_LOOKUP_PATH, KEY_USAGE_PATH, keyLookupRequestSchema, keyUsageRequestSchema, type KeyLookupResponse } from '@acs/contracts';
import { recordKeyUsage } from '../data-access/api-keys-repository.js';
import { addDailyUsage, addOperationUsage } from '../data-access/usage-repository.js';
import { recordQuotaThresholdEvents } from '../events/record-quota-crossings.js';
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
  // Batches of lastUsedAt, of request counts per key, day (and operation and hour) and status class, and of
  // quota threshold crossings from the gateways
  // (one call every few seconds per gateway, not one per request).
  router.post(KEY_USAGE_PATH, async (ctx) => {
    const { usage, counts, operationCounts, quotaThresholds } = parseInput(
      keyUsageRequestSchema,
      await readJsonBody(ctx, 64 * 1024 * 1024),
      'body',
    );
    // One transaction: a batch that fails adds nothing, so the gateway's resend never counts twice.
    const updated = await deps.db.transaction(async (tx) => {
      const n = await recordKeyUsage(tx, usage);
      if (counts) await addDailyUsage(tx, counts);
      if (operationCounts) await addOperationUsage(tx, operationCounts);
      // Each crossing once (quota_threshold_crossings' key); publishing them is the outbox publisher's job.
      if (quotaThresholds) await recordQuotaThresholdEvents(tx, quotaThresholds);
      return n;
    });
    ctx.body = { updated };
  });
  return router;
}
