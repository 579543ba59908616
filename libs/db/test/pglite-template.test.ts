import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { makePgliteTemplate, pgliteTemplateFor } from '../src/pglite/pglite-template.js';
import { createPglite } from '../src/pglite/pglite-db.js';

// Issue 27, item 2: a first start unpacks the database npm ci's prepare step made once, instead
// of running PostgreSQL's initdb while the newcomer waits.
const dir = mkdtempSync(join(tmpdir(), 'acs-template-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the embedded database template', () => {
  it('is made once, used for a folder without a database, and not for one with a database', async () => {
    const file = await makePgliteTemplate();
    expect(existsSync(file)).toBe(true);
    expect(await makePgliteTemplate()).toBe(file); // made once

    const target = join(dir, 'pglite');
    expect(await pgliteTemplateFor(target)).toBeInstanceOf(Blob);
    const pglite = await createPglite(target);
    try {
      expect((await pglite.query<{ ok: number }>('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
      expect((await pglite.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0]!.shared_buffers).toBe('16MB');
    } finally {
      await pglite.close();
    }
    expect(existsSync(join(target, 'PG_VERSION'))).toBe(true);
    expect(await pgliteTemplateFor(target)).toBeUndefined();
  }, 180_000);
});
