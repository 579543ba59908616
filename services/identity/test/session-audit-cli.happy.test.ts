import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { listAudit } from '@acs/audit';
import { cliRunner, signedFetch } from '@acs/testing';
import { insertFeedEntry } from '../src/data-access/audit-feed-repository.js';
import { IDENTITY_AUDIT } from '../src/domain/account-audit.js';
import { INTERNAL_SECRET, registered, startIdentity, type IdentityHarness } from './harness.js';

// Issue 30: the operators' audit CLI (`npm run audit -- verify|export|prune`) covers identity's session
// entries like any other: exported, pruned, and an edited one is named by `verify`.
const { buildCli, runCli } = cliRunner('services/identity', { entry: 'dist/audit-cli.js' });
let identity: IdentityHarness;
beforeAll(async () => {
  await buildCli();
  identity = await startIdentity();
}, 180_000);
afterAll(async () => identity.stop());

describe("identity's audit CLI and session entries", () => {
  it('exports session entries, and `verify` names the session entry someone edited', async () => {
    const { user, body } = await registered(identity);
    const login = await identity.login({ email: user.email, password: body.password }, { clientIp: '203.0.113.50' });
    expect(login.status).toBe(200);
    const sessions = (await listAudit(identity.db, IDENTITY_AUDIT, { userId: user.id, limit: 10, order: 'oldest' })).filter(
      (entry) => entry.targetType === 'session',
    );
    const sessionId = sessions[0]!.targetId;
    const ended = await signedFetch(identity.url, INTERNAL_SECRET, 'DELETE', `/api/Sessions/${sessionId}`, {
      audience: 'identity',
      context: { keyId: 'dashboard', scopes: ['system:full-access'], userId: user.id, role: 1, sessionId, clientIp: '203.0.113.50' },
    });
    expect(ended.status).toBe(200);
    const env = { IDENTITY_DATABASE_URL: identity.database.url };

    const exported = await runCli(['export', '--user', String(user.id)], env);
    expect(exported.code).toBe(0);
    const lines = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; action: string; targetId: string; actor: { clientAddress: string | null } });
    expect(lines.map((line) => line.action)).toEqual(['account.created', 'session.created', 'session.ended']);
    expect(lines[1]!.actor.clientAddress).toBe('203.0.113.50');
    expect((await runCli(['verify'], env)).code).toBe(0);

    const edited = lines[1]!;
    const raw = new pg.Client({ connectionString: identity.database.url });
    await raw.connect();
    try {
      await raw.query('BEGIN');
      // Past the append-only trigger, as someone with the database's owner rights could: the sign-in's address is changed.
      await raw.query('SET LOCAL session_replication_role = replica');
      await raw.query(`UPDATE audit_log SET client_address = '192.0.2.1' WHERE id = $1`, [edited.id]);
      await raw.query('COMMIT');
    } finally {
      await raw.end();
    }
    const broken = await runCli(['verify'], env);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`identity audit entry ${edited.id}: entry ${edited.id} was edited`);
  });

  it("prune deletes session entries older than the retention like every other entry, and their copies in the account page's feed", async () => {
    const { user, body } = await registered(identity);
    const other = await registered(identity);
    expect((await identity.login({ email: user.email, password: body.password })).status).toBe(200);
    // The feed also holds other services' entries (from their audit.recorded events): a copy of one of keys'.
    await insertFeedEntry(identity.db, {
      service: 'keys',
      entryId: 1_000_000 + user.id,
      occurredAt: new Date().toISOString(),
      actor: { type: 'user', id: String(user.id), requestId: null, clientAddress: null },
      action: 'api_key.created',
      targetType: 'api_key',
      targetId: 'key-1',
      userId: user.id,
      before: null,
      after: { name: 'ci' },
    });
    const env = { IDENTITY_DATABASE_URL: identity.database.url };
    const { code, stdout } = await runCli(['prune', '--older-than-days', '1'], env);
    expect(code).toBe(0);
    expect(stdout).toMatch(/identity: 0 audit entries older than 1 days deleted, and 0 entries of the account page's feed/);
    const feedOf = (userId: number) =>
      identity.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_feed WHERE user_id = $1', [userId]);
    const copies = (await feedOf(user.id)).rows[0]!.n;
    expect(copies).toBeGreaterThanOrEqual(3); // account.created, session.created, keys' api_key.created
    const raw = new pg.Client({ connectionString: identity.database.url });
    await raw.connect();
    try {
      await raw.query('BEGIN');
      await raw.query('SET LOCAL session_replication_role = replica');
      await raw.query(`UPDATE audit_log SET occurred_at = now() - interval '3 days' WHERE user_id = $1`, [user.id]);
      await raw.query(`UPDATE audit_feed SET occurred_at = now() - interval '3 days' WHERE user_id = $1`, [user.id]);
      await raw.query('COMMIT');
    } finally {
      await raw.end();
    }
    const pruned = await runCli(['prune', '--older-than-days', '1'], env);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toMatch(
      new RegExp(`identity: [1-9][0-9]* audit entries older than 1 days deleted, and ${copies} entries of the account page's feed`),
    );
    const left = await listAudit(identity.db, IDENTITY_AUDIT, { userId: user.id, limit: 10, order: 'oldest' });
    expect(left).toEqual([]);
    expect((await feedOf(user.id)).rows[0]!.n).toBe(0);
    // The page the user reads is empty too; another user's recent entries stay.
    expect((await feedOf(other.user.id)).rows[0]!.n).toBeGreaterThan(0);
  });
});
