import { describe, expect, it } from '@jest/globals';
import { sha256 } from './harness.js';
import { parseCreated, runCli, useCliServers } from './cli-harness.js';

// `npm run keys -- create --expires-in` and `roll`: written through to the gateway's Redis like every change.
const servers = useCliServers('keys_cli_life');
const cachedRecord = (key: string) => servers.cachedRecord(key);

describe('keys CLI: expiry and roll', () => {
  it('creates a key that expires in 30 days, shown in list and carried in the cache record', async () => {
    const before = Date.now();
    const out = await runCli(['create', '--scopes', 'read:devices', '--expires-in', '30d'], servers.env());
    expect(out.code).toBe(0);
    const created = parseCreated(out.stdout);
    const expiresAtMs = (await cachedRecord(created.key)).expiresAtMs as number;
    expect(expiresAtMs).toBeGreaterThanOrEqual(before + 30 * 86_400_000);
    expect(expiresAtMs).toBeLessThanOrEqual(Date.now() + 30 * 86_400_000);
    expect((await runCli(['list'], servers.env())).stdout).toContain(`active until ${new Date(expiresAtMs).toISOString()}`);
  });

  it('rolls by key with --grace 1h (old hash kept until then) and by id with --grace 0s (old one dropped)', async () => {
    const created = parseCreated((await runCli(['create', '--scopes', 'read:devices'], servers.env())).stdout);
    const rolled = await runCli(['roll', created.key, '--grace', '1h'], servers.env());
    expect(rolled).toMatchObject({ code: 0, stderr: '' });
    const secret = /X-Api-Secret: (\S+)/.exec(rolled.stdout)![1]!;
    expect(rolled.stdout).toMatch(/old secret works until \d{4}-/);
    const record = await cachedRecord(created.key);
    expect(record).toMatchObject({ secretHash: sha256(secret), previousSecretHash: sha256(created.secret) });
    expect((record.previousSecretEndsAtMs as number) - Date.now()).toBeGreaterThan(3500_000);
    const listed = (await runCli(['list'], servers.env())).stdout.split('\n').find((line) => line.includes(created.key));
    expect(listed).toContain(`old secret until ${new Date(record.previousSecretEndsAtMs as number).toISOString()}`);

    const again = await runCli(['roll', created.id, '--grace', '0s'], servers.env());
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('The old secret no longer works.');
    expect(await cachedRecord(created.key)).not.toHaveProperty('previousSecretHash');
    const relisted = (await runCli(['list'], servers.env())).stdout.split('\n').find((line) => line.includes(created.key));
    expect(relisted).not.toContain('old secret until');
  });

  it('refuses bad --expires-in and --grace values and unknown keys with exit code 1 and a message', async () => {
    const created = parseCreated((await runCli(['create', '--scopes', 'read:devices'], servers.env())).stdout);
    for (const [args, message] of [
      [['create', '--scopes', 'read:devices', '--expires-in', '30'], '--expires-in'],
      [['create', '--scopes', 'read:devices', '--expires-in', '0d'], '--expires-in'],
      [['create', '--scopes', 'read:devices', '--expires-in', '-1d'], '--expires-in'],
      [['roll', created.key, '--grace', '8d'], '--grace'],
      [['roll', created.key, '--grace', 'soon'], '--grace'],
      [['roll', 'acs_live_doesnotexist0000000000'], 'No API key'],
      [['roll'], 'Name the key'],
    ] as const) {
      const result = await runCli([...args], servers.env());
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(message);
    }
    expect((await cachedRecord(created.key)).secretHash).toBe(sha256(created.secret));
  });
});
