import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Db } from '@acs/db';
import { openKind } from './helpers.js';

// Services run on PGlite locally and PostgreSQL in production: the same SQL must give the same
// JS values. Each query runs on both kinds and the rows are compared with each other and with
// the documented mapping.

const LITERALS = `SELECT
  1::int2 AS i2, 2::int4 AS i4, 3::int8 AS i8, NULL::int8 AS i8_null, 1.5::float4 AS f4, 2.25::float8 AS f8,
  12.340::numeric AS num, 123456789012345678901234567890.5::numeric AS num_huge,
  true AS bool, 'txt'::text AS txt, '00000000-0000-0000-0000-000000000001'::uuid AS uuid,
  '{"a":[1,2]}'::jsonb AS jsonb, '{"b":null}'::json AS json, '\\x0102ff'::bytea AS bytes,
  '2024-02-29'::date AS day, '12:34:56'::time AS clock, '1 day 2 hours'::interval AS span,
  '2024-02-29 12:34:56.789123'::timestamp AS ts,
  '2024-02-29 12:34:56.789123+05:30'::timestamptz AS tstz,
  '0044-03-15 12:00:00+00 BC'::timestamptz AS bc, '0099-06-01 00:00:00+00'::timestamptz AS year99,
  'infinity'::timestamptz AS forever,
  ARRAY[1, 2, NULL]::int8[] AS i8s, ARRAY[1.50, NULL]::numeric[] AS nums,
  ARRAY['2024-01-01 00:00:00+00']::timestamptz[] AS tstzs, ARRAY['2024-01-01']::date[] AS days,
  ARRAY['a b', 'c"d', 'e\\f', NULL]::text[] AS texts, ARRAY[[1, 2], [3, 4]]::int4[] AS grid,
  (SELECT count(*) FROM generate_series(1, 3)) AS counted`;

const EXPECTED_LITERALS = {
  i2: 1,
  i4: 2,
  i8: 3,
  i8_null: null,
  f4: 1.5,
  f8: 2.25,
  num: '12.340',
  num_huge: '123456789012345678901234567890.5',
  bool: true,
  txt: 'txt',
  uuid: '00000000-0000-0000-0000-000000000001',
  jsonb: { a: [1, 2] },
  json: { b: null },
  bytes: Buffer.from([1, 2, 255]),
  day: '2024-02-29',
  clock: '12:34:56',
  span: '1 day 02:00:00',
  ts: new Date('2024-02-29T12:34:56.789Z'),
  tstz: new Date('2024-02-29T07:04:56.789Z'),
  bc: dateInYear(-43, 2, 15, 12), // 44 BC is astronomical year -43
  year99: dateInYear(99, 5, 1, 0),
  forever: Infinity,
  i8s: [1, 2, null],
  nums: ['1.50', null],
  tstzs: [new Date('2024-01-01T00:00:00Z')],
  days: ['2024-01-01'],
  texts: ['a b', 'c"d', 'e\\f', null],
  grid: [
    [1, 2],
    [3, 4],
  ],
  counted: 3,
};

function dateInYear(year: number, month: number, day: number, hour: number): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  date.setUTCHours(hour);
  return date;
}

async function sameOnBoth(run: (db: Db) => Promise<unknown>, dbs: Record<Db['kind'], Db>): Promise<unknown> {
  const [onPostgres, onPglite] = await Promise.all([run(dbs.postgres), run(dbs.pglite)]);
  expect(onPglite).toEqual(onPostgres);
  return onPostgres;
}

describe('the same queries on PostgreSQL and PGlite', () => {
  const opened: Array<{ db: Db; cleanup(): Promise<void> }> = [];
  let dbs: Record<Db['kind'], Db>;
  beforeAll(async () => {
    opened.push(await openKind('postgres'), await openKind('pglite'));
    const [postgres, pglite] = opened.map((o) => o.db);
    if (!postgres || !pglite) throw new Error('both kinds must open');
    dbs = { postgres, pglite };
  });
  afterAll(async () => {
    await Promise.all(opened.map((o) => o.cleanup()));
  });

  it('maps every common type to the same JS value', async () => {
    const rows = await sameOnBoth(async (db) => (await db.query(LITERALS)).rows, dbs);
    expect(rows).toEqual([EXPECTED_LITERALS]);
  });

  it('reads timestamps as instants whatever the session time zone', async () => {
    const rows = await sameOnBoth(
      (db) =>
        db.transaction(async (tx) => {
          await tx.query("SET LOCAL TIME ZONE 'Asia/Kathmandu'"); // +05:45, a non-whole-hour offset
          const {
            rows: [row],
          } = await tx.query<{ at: Date; shown: string; now: Date }>(
            "SELECT '2024-07-01 00:00:00+00'::timestamptz AS at, '2024-07-01 00:00:00+00'::timestamptz::text AS shown, now() AS now",
          );
          // now() differs between the two servers by some milliseconds: compare what it is, not its value.
          return {
            at: row?.at,
            shown: row?.shown,
            nowIsRecent: row?.now instanceof Date && Math.abs(row.now.getTime() - Date.now()) < 60_000,
          };
        }),
      dbs,
    );
    expect(rows).toEqual({ at: new Date('2024-07-01T00:00:00Z'), shown: '2024-07-01 05:45:00+05:45', nowIsRecent: true });
  });

  it('round-trips parameters through a table', async () => {
    const at = new Date('2024-05-06T07:08:09.123Z');
    const rows = await sameOnBoth(async (db) => {
      await db.query(`CREATE TABLE round_trip (
        id bigserial PRIMARY KEY, amount numeric(12, 2), at timestamptz, day date, meta jsonb,
        data bytea, tags text[], big int8, flag boolean, note text)`);
      const inserted = await db.query<{ id: number }>(
        'INSERT INTO round_trip (amount, at, day, meta, data, tags, big, flag, note) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id',
        ['19.99', at, '2024-03-01', { k: 'v', n: [1] }, Buffer.from([1, 2, 3]), ['x', 'y'], 9_007_199_254_740_991n, false, null],
      );
      expect(inserted.rowCount).toBe(1);
      return (await db.query('SELECT * FROM round_trip WHERE id = $1 AND at = $2', [inserted.rows[0]?.id, at])).rows;
    }, dbs);
    expect(rows).toEqual([
      {
        id: 1,
        amount: '19.99',
        at,
        day: '2024-03-01',
        meta: { k: 'v', n: [1] },
        data: Buffer.from([1, 2, 3]),
        tags: ['x', 'y'],
        big: Number.MAX_SAFE_INTEGER,
        flag: false,
        note: null,
      },
    ]);
  });

  it('reports the same errors', async () => {
    const codes = await sameOnBoth(async (db) => {
      await db.query('CREATE TABLE uniq (v int PRIMARY KEY)');
      await db.query('INSERT INTO uniq VALUES (1)');
      const duplicate = await db.query('INSERT INTO uniq VALUES (1)').catch((err: unknown) => err);
      const syntax = await db.query('SELEC 1').catch((err: unknown) => err);
      return [duplicate, syntax].map((err) => (err as { code?: string }).code);
    }, dbs);
    expect(codes).toEqual(['23505', '42601']);
  });
});
