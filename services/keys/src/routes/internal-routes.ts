import { Router, parseInput, readJsonBody, type AppState } from '@acs/http';
import { KEY_LOOKUP_PATH, keyLookupRequestSchema, type KeyLookupResponse } from '@acs/contracts';
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
  return router;
}
