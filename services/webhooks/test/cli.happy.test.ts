import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cliRunner } from '@acs/testing';
import { newUserId, World, type Harness } from './harness.js';

// The operators' CLI against the service's own database (WEBHOOKS_DATABASE_URL).
const { buildCli, runCli } = cliRunner('services/webhooks');
let world: World;
let webhooks: Harness;
let env: Record<string, string>;
const SERVICE_KEY = 'the-key-the-service-runs-with-0123456789abcdef';

beforeAll(async () => {
  await buildCli();
  world = await World.open();
  webhooks = await world.service({ WEBHOOKS_SECRET_KEY: SERVICE_KEY });
  env = { WEBHOOKS_DATABASE_URL: webhooks.databaseUrl };
}, 180_000);
afterAll(async () => world?.close());

describe('npm run webhooks', () => {
  it('lists endpoints, disables one with a reason its owner sees, and refuses bad arguments', async () => {
    const userId = newUserId();
    const { id } = await webhooks.register(userId, 'http://127.0.0.1:1/cli');
    const listed = await runCli(['endpoints', '--user', String(userId)], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${id}\tuser ${userId}\tenabled\tapi_key.created\thttp://127.0.0.1:1/cli`);

    const disabled = await runCli(['disable', id, 'calls', 'a', 'metadata', 'proxy'], env);
    expect(disabled.code).toBe(0);
    const shown = (await (await webhooks.call('GET', `/api/Webhooks/${id}`, userId)).json()) as {
      enabled: boolean;
      disabledReason: string;
    };
    expect(shown).toMatchObject({ enabled: false, disabledReason: 'Disabled by an operator: calls a metadata proxy' });
    expect((await runCli(['endpoints', '--disabled'], env)).stdout).toContain(id);

    expect((await runCli(['disable', 'nope', 'x'], env)).code).toBe(1);
    expect((await runCli(['prune'], env)).stderr).toContain('--older-than-days');
    const pruned = await runCli(['prune', '--older-than-days', '30'], env);
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toMatch(/^Deleted 0 deliveries/);
  });

  it('reseals the secrets under a new key (read with the previous), changes nothing a second time, and names unreadable ones', async () => {
    const help = await runCli(['--help'], {});
    expect(help.stdout).toMatch(/reseal\n/);
    expect(help.stdout).toMatch(/WEBHOOKS_SECRET_KEY +reseal:/);
    expect(help.stdout).toMatch(/WEBHOOKS_SECRET_KEY_PREVIOUS +reseal:/);
    expect((await runCli(['reseal'], env)).stderr).toContain('WEBHOOKS_SECRET_KEY');
    expect((await runCli(['reseal', 'extra'], env)).stderr).toContain('Unexpected argument "extra"');

    await webhooks.register(newUserId(), 'http://127.0.0.1:1/reseal');
    const total = (await runCli(['endpoints'], env)).stdout.trim().split('\n').length;
    const newKey = 'the-key-that-replaces-it-0123456789abcdef';
    const rotating = { ...env, WEBHOOKS_SECRET_KEY: newKey, WEBHOOKS_SECRET_KEY_PREVIOUS: SERVICE_KEY };
    const first = await runCli(['reseal'], rotating);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`Resealed ${total}, already current 0, unreadable 0`);
    const second = await runCli(['reseal'], rotating);
    expect(second.stdout).toContain(`Resealed 0, already current ${total}, unreadable 0`);
    expect(second.stdout + second.stderr).not.toContain(newKey);

    // A key these secrets were never sealed under: every endpoint is named, none is changed.
    const wrong = await runCli(['reseal'], { ...env, WEBHOOKS_SECRET_KEY: 'w'.repeat(40) });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain(`Resealed 0, already current 0, unreadable ${total}`);
    expect(wrong.stdout.split('\n').filter((l) => l.startsWith('unreadable\t'))).toHaveLength(total);
    expect(wrong.stderr).toContain('fits neither key');
    expect((await runCli(['reseal'], { ...env, WEBHOOKS_SECRET_KEY: newKey })).stdout).toContain(`already current ${total}`);
  });
});
