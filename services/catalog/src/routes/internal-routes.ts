import { Router, parseInput, readJsonBody, type AppState } from '@acs/http';
import { CATALOG_SUMMARIES_PATH, catalogSummariesRequestSchema } from '@acs/contracts';
import type { Db } from '@acs/db';
import { findSummaries } from '../data-access/catalog-repository.js';

/** Routes for other services (signed with the internal secret); in no public route table. */
export function internalRoutes(db: Db): Router<AppState> {
  const router = new Router<AppState>();
  router.post(CATALOG_SUMMARIES_PATH, async (ctx) => {
    const { ids } = parseInput(catalogSummariesRequestSchema, await readJsonBody(ctx), 'body');
    ctx.body = { entries: await findSummaries(db, ids) };
  });
  return router;
}
