import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { listAudit, verifyAuditChain, type AuditActor } from '@acs/audit';
import { IDENTITY_AUDIT } from '../src/domain/account-audit.js';
import { openSession } from '../src/domain/sessions.js';
import { registered, startIdentity, type IdentityHarness } from './harness.js';

// Issue 30: sign-ins that arrive together open their sessions in one transaction (one commit under
// the audit chain's lock instead of one each), and the chain still verifies and still names an edit.
let identity: IdentityHarness;
let userIds: number[];
beforeAll(async () => {
  identity = await startIdentity();
  userIds = [];
  for (let i = 0; i < 4; i++) userIds.push((await registered(identity)).user.id);
}, 60_000);
afterAll(async () => identity.stop());

const actor = (n: number): AuditActor => ({ type: 'user', id: null, requestId: `req-${n}`, clientAddress: `203.0.113.${n % 250}` });
const from = { userAgent: undefined, clientIp: '203.0.113.7' };
const expiresAt = () => Math.floor(Date.now() / 1000) + 3600;

async function sessionEntries(sessionIds: string[]) {
  const { rows } = await identity.db.query<{ id: string; target_id: string; user_id: string; request_id: string; tx: string }>(
    `SELECT id, target_id, user_id, request_id, xmin::text AS tx FROM audit_log
     WHERE action = 'session.created' AND target_id = ANY($1::text[]) ORDER BY id`,
    [sessionIds],
  );
  return rows;
}

describe('sign-ins arriving together', () => {
  it('open every session with its own entry, several in one transaction, and the chain verifies', async () => {
    const opened = await Promise.all(
      Array.from({ length: 40 }, (_, n) => openSession({ db: identity.db, actor: actor(n) }, userIds[n % 4]!, from, expiresAt())),
    );

    expect(new Set(opened).size).toBe(40);
    const entries = await sessionEntries(opened);
    expect(entries).toHaveLength(40);
    for (const entry of entries) {
      const n = opened.indexOf(entry.target_id);
      expect([Number(entry.user_id), entry.request_id]).toEqual([userIds[n % 4], `req-${n}`]);
    }
    // Fewer transactions than sign-ins: the groups committed together.
    expect(new Set(entries.map((e) => e.tx)).size).toBeLessThan(40);
    const { rows } = await identity.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE id = ANY($1::text[])', [opened]);
    expect(rows[0]!.n).toBe(40);
    const { rows: feed } = await identity.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_feed WHERE action = 'session.created' AND target_id = ANY($1::text[])`,
      [opened],
    );
    expect(feed[0]!.n).toBe(40);
    expect((await verifyAuditChain(identity.db, IDENTITY_AUDIT)).problems).toEqual([]);
  });

  it('fail only the sign-in that cannot be opened, and an edited entry of a group is still named', async () => {
    const attempts = Array.from({ length: 10 }, (_, n) =>
      // n = 5: a user who does not exist (deleted meanwhile), which its session row refuses.
      openSession({ db: identity.db, actor: actor(n) }, n === 5 ? 2_000_000_001 : userIds[n % 4]!, from, expiresAt()).then(
        (id) => id,
        () => null,
      ),
    );
    const outcomes = await Promise.all(attempts);

    expect(outcomes.map((id) => id === null)).toEqual([false, false, false, false, false, true, false, false, false, false]);
    const opened = outcomes.filter((id): id is string => id !== null);
    expect(await sessionEntries(opened)).toHaveLength(9);
    expect((await verifyAuditChain(identity.db, IDENTITY_AUDIT)).problems).toEqual([]);

    const [victim] = (await listAudit(identity.db, IDENTITY_AUDIT, { targetId: opened[3]!, limit: 1, order: 'oldest' }))!;
    const raw = new pg.Client({ connectionString: identity.database.url });
    await raw.connect();
    try {
      await raw.query('BEGIN');
      // Past the append-only trigger, as someone with the owner's rights could.
      await raw.query('SET LOCAL session_replication_role = replica');
      await raw.query(`UPDATE audit_log SET client_address = '192.0.2.1' WHERE id = $1`, [victim!.id]);
      await raw.query('COMMIT');
    } finally {
      await raw.end();
    }
    const report = await verifyAuditChain(identity.db, IDENTITY_AUDIT);
    expect(report.problems.map((p) => [p.id, p.kind])).toEqual([[victim!.id, 'edited']]);
  });
});
