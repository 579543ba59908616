import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { catalogEntryInputSchema } from '@acs/contracts';
import { insertMissingEntries, readMeta, writeMeta } from '../data-access/catalog-repository.js';

const SEED_FILE = new URL('../../seed/products.json', import.meta.url);
const SEEDED_MARKER = 'seeded_at';

/** Loads the bundled products once, on the first start; later starts (and deleted rows) are left alone. */
export async function seedCatalogOnce(db: Db, logger: Logger): Promise<number> {
  if ((await readMeta(db, SEEDED_MARKER)) !== null) return 0;
  const entries = z.array(catalogEntryInputSchema).parse(JSON.parse(await readFile(SEED_FILE, 'utf8')));
  const inserted = await db.transaction(async (tx) => {
    const count = await insertMissingEntries(tx, entries);
    await writeMeta(tx, SEEDED_MARKER, new Date().toISOString());
    return count;
  });
  logger.info({ inserted }, 'catalog seeded');
  return inserted;
}
