import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { listAudit, operatorActor } from '@acs/audit';
import { apiKeyCreatedResponseSchema, apiKeyRolledResponseSchema } from '@acs/contracts';
import { cliRunner, signedFetch } from '@acs/testing';
import { KEYS_AUDIT } from '../src/events/keys-audit.js';
import { changeApiKey } from '../src/index.js';
import { INTERNAL_SECRET, sha256, startKeys, type KeysHarness } from './harness.js';

// Issue 30: every key change is in keys' audit trail, in the transaction of the change, hash-chained.
const { buildCli, runCli } = cliRunner('services/keys', { entry: 'dist/audit-cli.js' });
let h: KeysHarness;
beforeAll(async () => {
  await buildCli();
  h = await startKeys({ env: { KEYS_PER_USER: '1' } });
}, 180_000);
afterAll(async () => h.stop());

const USER = 4101;
const context = {
  requestId: 'req-audit-1',
  keyId: 'dashboard',
  scopes: ['system:full-access'],
  userId: USER,
  role: 1,
  clientIp: '198.51.100.7',
};
const call = (method: string, path: string, body?: unknown) =>
  signedFetch(h.url, INTERNAL_SECRET, method, path, {
    context,
    ...(body === undefined ? {} : { body }),
    headers: { 'x-request-id': context.requestId },
  });
const trail = () => listAudit(h.db, KEYS_AUDIT, { userId: USER, limit: 100, order: 'oldest' });

describe("keys' audit trail", () => {
  it('records create, scopes and limits, roll and revoke with the user, the request, the address, before and after; never a secret, a hash or the key', async () => {
    const created = apiKeyCreatedResponseSchema.parse(
      await (await call('POST', '/api/ApiKeys', { name: 'audited', scopes: 'read:devices' })).json(),
    );
    expect(
      (
        await call('PATCH', `/api/ApiKeys/${created.id}`, {
          scopes: 'read:devices write:devices',
          rateLimits: [{ limit: 5, windowSeconds: 60 }],
        })
      ).status,
    ).toBe(200);
    // A refused change (one active key per user here) records nothing.
    expect((await call('POST', '/api/ApiKeys', { name: 'one too many', scopes: 'read:devices' })).status).toBe(409);
    const rolled = apiKeyRolledResponseSchema.parse(
      await (await call('POST', `/api/ApiKeys/${created.id}/roll`, { graceSeconds: 0 })).json(),
    );
    expect((await call('DELETE', `/api/ApiKeys/${created.id}`)).status).toBe(200);

    const entries = await trail();
    expect(entries.map((entry) => entry.action)).toEqual(['api_key.created', 'api_key.changed', 'api_key.rolled', 'api_key.revoked']);
    for (const entry of entries) {
      expect(entry).toMatchObject({ service: 'keys', targetType: 'api_key', targetId: created.id, userId: USER });
      expect(entry.actor).toEqual({ type: 'user', id: String(USER), requestId: 'req-audit-1', clientAddress: '198.51.100.7' });
    }
    expect(entries[0]!.before).toBeNull();
    expect(entries[1]!.before).toMatchObject({ scopes: ['read:devices'], rateLimits: null });
    expect(entries[1]!.after).toMatchObject({ scopes: ['read:devices', 'write:devices'], rateLimits: [{ limit: 5, windowSeconds: 60 }] });
    expect(entries[3]!.before).toMatchObject({ revokedAt: null });
    expect(entries[3]!.after!.revokedAt).toEqual(expect.any(String));
    const text = JSON.stringify(entries);
    for (const secretish of [created.secret, rolled.secret, sha256(created.secret), sha256(rolled.secret), created.key])
      expect(text).not.toContain(secretish);
  });

  it('names an operator as the actor of a CLI change', async () => {
    const [entry] = await trail();
    await changeApiKey({ ...h.deps, actor: operatorActor('keys cli') }, entry!.targetId, { name: 'renamed by an operator' });
    const last = (await trail()).at(-1)!;
    expect(last).toMatchObject({ action: 'api_key.changed', after: expect.objectContaining({ name: 'renamed by an operator' }) });
    expect(last.actor).toMatchObject({ type: 'operator', id: expect.stringMatching(/ via keys cli$/), requestId: null });
  });

  it('`verify` passes on the untouched trail and names the entry someone edited or deleted', async () => {
    const env = { KEYS_DATABASE_URL: h.database.url };
    const intact = await runCli(['verify'], env);
    expect(intact).toMatchObject({ code: 0 });
    expect(intact.stdout).toMatch(/keys: 5 audit entries verified.*intact/);

    const entries = await trail();
    const raw = new pg.Client({ connectionString: h.database.url });
    await raw.connect();
    try {
      await raw.query('BEGIN');
      // Direct database access past the trigger, as an intruder or a careless operator would have.
      await raw.query('SET LOCAL session_replication_role = replica');
      await raw.query(`UPDATE audit_log SET after = jsonb_set(after, '{scopes}', '["system:full-access"]') WHERE id = $1`, [
        entries[1]!.id,
      ]);
      await raw.query('DELETE FROM audit_log WHERE id = $1', [entries[2]!.id]);
      await raw.query('COMMIT');
      // The app itself cannot: the table is append-only.
      await expect(raw.query('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
    } finally {
      await raw.end();
    }
    const broken = await runCli(['verify'], env);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`keys audit entry ${entries[1]!.id}: entry ${entries[1]!.id} was edited`);
    expect(broken.stdout).toContain(`keys audit entry ${entries[3]!.id}: entry ${entries[3]!.id} does not link to the entry before it`);
  });

  it('exports the trail as NDJSON, one entry a line, filtered by user', async () => {
    const { code, stdout } = await runCli(['export', '--user', String(USER)], { KEYS_DATABASE_URL: h.database.url });
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { service: string; userId: number; action: string });
    expect(lines.length).toBe(4);
    expect(lines.every((line) => line.service === 'keys' && line.userId === USER)).toBe(true);
  });
});
