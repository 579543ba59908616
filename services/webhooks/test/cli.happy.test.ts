import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cliRunner } from '@acs/testing';
import { newUserId, World, type Harness } from './harness.js';

// The operators' CLI against the service's own database (WEBHOOKS_DATABASE_URL).
const { buildCli, runCli } = cliRunner('services/webhooks');
let world: World;
let webhooks: Harness;
let env: Record<string, string>;

beforeAll(async () => {
  await buildCli();
  world = await World.open();
  webhooks = await world.service();
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
});
