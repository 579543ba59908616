import { describe, expect, it } from '@jest/globals';
import { parseCreated, runCli, useCliServers } from './cli-harness.js';

// `npm run keys -- set-limits`: operators set or clear a key's own rate limits; written through to the gateway's Redis.
const servers = useCliServers('keys_cli_limits');
const cachedRecord = (key: string) => servers.cachedRecord(key);

describe('keys CLI set-limits', () => {
  it('sets limits by key or id, shows them in list, writes them through, and --clear removes them', async () => {
    const created = parseCreated((await runCli(['create', '--scopes', 'read:devices'], servers.env())).stdout);
    const set = await runCli(['set-limits', created.key, '--limits', '20/1s,50000/1d'], servers.env());
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toContain('limits 20/1s,50000/1d');
    expect((await cachedRecord(created.key)).rateLimits).toEqual([
      { limit: 20, windowSeconds: 1 },
      { limit: 50_000, windowSeconds: 86_400 },
    ]);
    expect((await runCli(['list'], servers.env())).stdout).toContain('limits 20/1s,50000/1d');

    const cleared = await runCli(['set-limits', created.id, '--clear'], servers.env());
    expect(cleared).toMatchObject({ code: 0, stderr: '' });
    expect(cleared.stdout).toContain('default limits');
    expect(await cachedRecord(created.key)).not.toHaveProperty('rateLimits');
  });

  it('refuses a bad list, both or neither option, and an unknown key, with exit code 1 and a message', async () => {
    const created = parseCreated((await runCli(['create', '--scopes', 'read:devices'], servers.env())).stdout);
    for (const args of [
      ['set-limits', created.key, '--limits', '20/1w'],
      ['set-limits', created.key, '--limits', '0/1s'],
      ['set-limits', created.key, '--limits', '1/1s,1/2s,1/3s,1/4s,1/5s'],
      ['set-limits', created.key],
      ['set-limits', created.key, '--limits', '20/1s', '--clear'],
      ['set-limits', 'acs_live_nosuchkeynosuchkey12', '--limits', '20/1s'],
    ]) {
      const result = await runCli(args, servers.env());
      expect({ args, code: result.code }).toEqual({ args, code: 1 });
      expect(result.stderr.length).toBeGreaterThan(0);
    }
    expect(await cachedRecord(created.key)).not.toHaveProperty('rateLimits');
  });
});

// `npm run keys -- set-allow-list` (issue 31.3): the same for a key's IP allow-list.
describe('keys CLI set-allow-list', () => {
  it('sets ranges, shows them in list, writes them through, and --clear removes them; refuses a bad range', async () => {
    const created = parseCreated((await runCli(['create', '--scopes', 'read:devices'], servers.env())).stdout);
    expect(created.secret).toMatch(/^acs_live_[A-Za-z0-9]{36}$/);
    const set = await runCli(['set-allow-list', created.key, '--ranges', '203.0.113.0/24, 2001:db8::/32'], servers.env());
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toContain('from 203.0.113.0/24,2001:db8::/32');
    expect((await cachedRecord(created.key)).ipAllowList).toEqual(['203.0.113.0/24', '2001:db8::/32']);

    for (const args of [
      ['set-allow-list', created.key, '--ranges', '10.0.0.0/33'],
      ['set-allow-list', created.key],
      ['set-allow-list', created.key, '--ranges', '10.0.0.0/8', '--clear'],
    ]) {
      const result = await runCli(args, servers.env());
      expect({ args, code: result.code }).toEqual({ args, code: 1 });
    }
    expect((await cachedRecord(created.key)).ipAllowList).toEqual(['203.0.113.0/24', '2001:db8::/32']);

    const cleared = await runCli(['set-allow-list', created.id, '--clear'], servers.env());
    expect(cleared).toMatchObject({ code: 0, stderr: '' });
    expect(await cachedRecord(created.key)).not.toHaveProperty('ipAllowList');
  });
});
