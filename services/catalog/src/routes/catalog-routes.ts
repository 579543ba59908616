import { Router, parseInput, type AppState } from '@acs/http';
import { catalogQuerySchema } from '@acs/contracts';
import type { Db } from '@acs/db';
import { listCatalog } from '../domain/list-catalog.js';

export function catalogRoutes(db: Db): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/api/Dac', async (ctx) => {
    const query = parseInput(catalogQuerySchema, ctx.query, 'query');
    ctx.body = await listCatalog(db, query);
  });
  return router;
}
