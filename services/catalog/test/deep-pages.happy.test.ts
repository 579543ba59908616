import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fc from 'fast-check';
import { DeepPageLimiter } from '../src/domain/deep-page-limiter.js';
import { openTestDb, startCatalog, type CatalogHarness, type CatalogPageBody } from './harness.js';

describe('DeepPageLimiter', () => {
  it('never runs more than its concurrency, runs every task once, in arrival order, errors included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }),
        async (concurrency, fails) => {
          const limiter = new DeepPageLimiter(concurrency);
          let running = 0;
          let most = 0;
          const started: number[] = [];
          const results = await Promise.allSettled(
            fails.map((fail, index) =>
              limiter.run(async () => {
                started.push(index);
                running += 1;
                most = Math.max(most, running);
                await new Promise((resolve) => setImmediate(resolve));
                running -= 1;
                if (fail) throw new Error(`task ${index}`);
                return index;
              }),
            ),
          );
          expect(most).toBeLessThanOrEqual(concurrency);
          expect(started).toEqual(fails.map((_, index) => index));
          for (const [index, result] of results.entries()) expect(result.status).toBe(fails[index] ? 'rejected' : 'fulfilled');
          expect(limiter.state).toEqual({ running: 0, waiting: 0 });
        },
      ),
      { numRuns: 50 },
    );
  });

  it('refuses a concurrency below 1', () => {
    expect(() => new DeepPageLimiter(0)).toThrow(/positive/);
  });
});

describe('deep pages through the service', () => {
  let catalog: CatalogHarness;

  beforeAll(async () => {
    // Pool of 4, one deep page at a time; page 2 of 5 already skips 5 rows, so it counts as deep.
    catalog = await startCatalog({ env: { CATALOG_DEEP_OFFSET: '5', CATALOG_DEEP_PAGE_CONCURRENCY: '1' } });
  });

  afterAll(async () => {
    await catalog?.stop();
  });

  const waitingOnTheLock = async (db: Awaited<ReturnType<typeof openTestDb>>): Promise<number> => {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FROM catalog_entries%OFFSET%'`,
    );
    return rows[0]!.n;
  };

  it('lets at most CATALOG_DEEP_PAGE_CONCURRENCY deep pages hold a connection (the rest wait outside the pool), and answers each right', async () => {
    const observer = await openTestDb(catalog.database, 1);
    const locker = await openTestDb(catalog.database, 1);
    let release = (): void => undefined;
    try {
      const expected = await Promise.all(
        [2, 3, 4, 5].map(async (page) => ((await (await catalog.get(`/api/Dac?page=${page}&pageSize=5`)).json()) as CatalogPageBody).items),
      );
      const released = new Promise<void>((resolve) => (release = resolve));
      let lockHeld = (): void => undefined;
      const held = new Promise<void>((resolve) => (lockHeld = resolve));
      const locked = locker.transaction(async (tx) => {
        // Holds every read of the table, so the deep requests pile up where they wait.
        await tx.query('LOCK TABLE catalog_entries IN ACCESS EXCLUSIVE MODE');
        lockHeld();
        await released;
      });
      // The deep requests go only once the lock is held: sent earlier, on a busy machine they could
      // finish before it and never wait (the loop below would then time out).
      await Promise.race([held, locked]);
      const deep = [2, 3, 4, 5].map((page) => catalog.get(`/api/Dac?page=${page}&pageSize=5`));
      // One deep read reaches PostgreSQL and waits there; the other three wait in the limiter.
      for (let tries = 0; (await waitingOnTheLock(observer)) < 1; tries++) {
        if (tries > 400) {
          const { rows } = await observer.query(
            'SELECT state, wait_event_type, left(query, 90) AS query FROM pg_stat_activity WHERE datname = current_database()',
          );
          throw new Error(`no deep read reached the database: ${JSON.stringify(rows)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await waitingOnTheLock(observer)).toBe(1);
      release();
      await locked;
      const answers = await Promise.all(deep);
      for (const [index, response] of answers.entries()) {
        expect(response.status).toBe(200);
        expect(((await response.json()) as CatalogPageBody).items).toEqual(expected[index]);
      }
    } finally {
      release(); // also when an expectation failed: the locker's transaction must end before it closes
      await observer.close();
      await locker.close();
    }
  }, 60_000);
});
