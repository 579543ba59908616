import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openServiceDatabase, type Db } from '@acs/db';
import { silentLogger } from '@acs/testing';
import { resealSecrets, type ResealCounts } from '../src/data-access/reseal-secrets.js';
import { secretBox } from '../src/domain/secret-box.js';
import { newWebhookSecret } from '../src/domain/signing.js';
import { WEBHOOKS_MIGRATIONS_DIR } from '../src/service.js';
import { migratedDatabase, newUserId } from './harness.js';

// The second step of a WEBHOOKS_SECRET_KEY rotation, on real PostgreSQL and on the embedded PGlite of
// `npm start`: rows sealed under the old key (as a deployment has them before the rotation), resealed in
// batches smaller than the table.
const OLD_KEY = 'the-old-webhooks-secret-key-0123456789abcdef';
const NEW_KEY = 'the-new-webhooks-secret-key-0123456789abcdef';
const UNRELATED_KEY = 'a-key-this-deployment-never-had-0123456789';
const keys = { current: NEW_KEY, previous: [OLD_KEY] };

/** A migrated webhooks database and how to get rid of it. */
interface OpenedDatabase {
  db: Db;
  remove(): Promise<void>;
}

async function postgres(): Promise<OpenedDatabase> {
  const { database, db } = await migratedDatabase('webhooks_reseal');
  return { db, remove: () => database.drop() };
}

async function embedded(): Promise<OpenedDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'acs-webhooks-reseal-'));
  const db = await openServiceDatabase({ service: 'webhooks', dataDir, migrationsDir: WEBHOOKS_MIGRATIONS_DIR, logger: silentLogger() });
  expect(db.kind).toBe('pglite');
  return { db, remove: async () => rmSync(dataDir, { recursive: true, force: true }) };
}

// Set by each database's beforeAll; the helpers below use the one of the tests running.
let db: Db;

interface Boxes {
  id: string;
  secret_box: string;
  previous_secret_box: string | null;
  updated_at: Date;
}

/** An endpoint whose boxes were sealed under the given keys; returns its id. */
async function endpoint(
  current: [key: string, secret: string],
  previous?: [key: string, secret: string],
  previousEndsAt = new Date(Date.now() + 3600_000),
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO endpoints (user_id, url, events, secret_box, previous_secret_box, previous_secret_ends_at, updated_at)
     VALUES ($1, 'https://example.com/hook', '{api_key.created}', $2, $3, $4, now() - interval '1 day') RETURNING id`,
    [
      newUserId(),
      secretBox(current[0]).seal(current[1]),
      previous ? secretBox(previous[0]).seal(previous[1]) : null,
      previous ? previousEndsAt : null,
    ],
  );
  return rows[0]!.id;
}

async function boxesOf(): Promise<Map<string, Boxes>> {
  const { rows } = await db.query<Boxes>('SELECT id, secret_box, previous_secret_box, updated_at FROM endpoints');
  return new Map(rows.map((row) => [row.id, row]));
}

describe.each([
  ['PostgreSQL', postgres],
  ['the embedded PGlite', embedded],
])('resealing the signing secrets under a new WEBHOOKS_SECRET_KEY, on %s', (_name, open) => {
  let opened: OpenedDatabase | undefined;
  beforeAll(async () => {
    opened = await open();
    db = opened.db;
  }, 60_000);
  afterAll(async () => {
    await opened?.db.close();
    await opened?.remove();
  });

  it('moves every readable box to the new key, reports the rest, and changes nothing the second time', async () => {
    const secrets = Array.from({ length: 7 }, () => newWebhookSecret());
    const plain = new Map<string, [string, string | null]>();
    const oldOnly = [];
    for (const secret of secrets.slice(0, 3)) {
      const id = await endpoint([OLD_KEY, secret]);
      plain.set(id, [secret, null]);
      oldOnly.push(id);
    }
    const oldWithPrevious = await endpoint([OLD_KEY, secrets[3]!], [OLD_KEY, secrets[4]!]);
    plain.set(oldWithPrevious, [secrets[3]!, secrets[4]!]);
    // Rotated by its owner after the pods had the new key: its previous box is still under the old one.
    const mixed = await endpoint([NEW_KEY, secrets[5]!], [OLD_KEY, secrets[4]!]);
    plain.set(mixed, [secrets[5]!, secrets[4]!]);
    const current = await endpoint([NEW_KEY, secrets[6]!]);
    plain.set(current, [secrets[6]!, null]);
    const unreadable = await endpoint([UNRELATED_KEY, newWebhookSecret()]);
    const before = await boxesOf();

    const progress: ResealCounts[] = [];
    const first = await resealSecrets(db, keys, { batchSize: 2, onBatch: (counts) => progress.push(structuredClone(counts)) });
    expect(first).toEqual({ resealed: 5, alreadyCurrent: 1, unreadable: [unreadable] });
    // 7 rows, 2 a batch: four transactions, the totals growing with each.
    expect(progress).toHaveLength(4);
    expect(progress.map((p) => p.resealed + p.alreadyCurrent + p.unreadable.length)).toEqual([2, 4, 6, 7]);

    const after = await boxesOf();
    const newKeyOnly = secretBox(NEW_KEY);
    for (const [id, [secret, previous]] of plain) {
      const row = after.get(id)!;
      expect(newKeyOnly.open(row.secret_box)).toBe(secret);
      expect(row.previous_secret_box === null ? null : newKeyOnly.open(row.previous_secret_box)).toBe(previous);
      // Re-encrypted, not otherwise changed: the owner sees the endpoint as it was.
      expect(row.updated_at).toEqual(before.get(id)!.updated_at);
    }
    for (const id of [...oldOnly, oldWithPrevious]) expect(after.get(id)!.secret_box).not.toBe(before.get(id)!.secret_box);
    expect(after.get(mixed)!.secret_box).toBe(before.get(mixed)!.secret_box);
    expect(after.get(current)).toEqual(before.get(current));
    expect(after.get(unreadable)).toEqual(before.get(unreadable));

    const second = await resealSecrets(db, keys, { batchSize: 2 });
    expect(second).toEqual({ resealed: 0, alreadyCurrent: 6, unreadable: [unreadable] });
    expect(await boxesOf()).toEqual(after);
    // Once resealed, the previous key is no longer needed.
    expect(await resealSecrets(db, { current: NEW_KEY, previous: [] })).toEqual(second);
  });

  it('drops a previous secret whose 24 h are over, readable or not, instead of resealing or reporting it', async () => {
    const past = new Date(Date.now() - 60_000);
    const lost = await endpoint([NEW_KEY, 'whsec_current_a'], [UNRELATED_KEY, 'whsec_lost'], past);
    const stale = await endpoint([OLD_KEY, 'whsec_current_b'], [OLD_KEY, 'whsec_stale'], past);
    const counts = await resealSecrets(db, keys);
    expect(counts.unreadable).not.toContain(lost);
    expect(counts.unreadable).not.toContain(stale);
    const { rows } = await db.query<{
      id: string;
      secret_box: string;
      previous_secret_box: string | null;
      previous_secret_ends_at: Date | null;
    }>('SELECT id, secret_box, previous_secret_box, previous_secret_ends_at FROM endpoints WHERE id = ANY($1::uuid[]) ORDER BY id', [
      [lost, stale],
    ]);
    for (const row of rows) {
      expect(row.previous_secret_box).toBeNull();
      expect(row.previous_secret_ends_at).toBeNull();
    }
    const newKeyOnly = secretBox(NEW_KEY);
    expect(rows.map((row) => newKeyOnly.open(row.secret_box)).sort()).toEqual(['whsec_current_a', 'whsec_current_b']);
    // Nothing left to do for them on a second run.
    const again = await resealSecrets(db, keys);
    expect(again.resealed).toBe(0);
  });
});
