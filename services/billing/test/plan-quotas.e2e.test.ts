import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { subscriptionQueueNames } from '@acs/bus';
import { subscriptionPlanListResponseSchema } from '@acs/contracts';
import { cliRunner, uniqueName, waitFor } from '@acs/testing';
import { registered, startIdentity, type IdentityHarness } from '@acs/test-support';
import { AmqpWorld, PLANS_PATH, startBilling, type BillingHarness } from './harness.js';

const { buildCli, runCli } = cliRunner('services/billing');

/** Billing's CLI changes a plan's quota; over RabbitMQ, identity rewrites the records of the plan's users. */
describe('plan quotas from billing to the authorization record', () => {
  let world: AmqpWorld;
  let billing: BillingHarness;
  let identity: IdentityHarness;
  let env: Record<string, string>;
  const queue = uniqueName('identity_quota_events');

  beforeAll(async () => {
    await buildCli();
    world = await AmqpWorld.open();
    for (const name of subscriptionQueueNames(queue, [50])) world.queues.add(name);
    identity = await startIdentity({
      bus: await world.bus(),
      env: { TRIAL_DURATION_SECONDS: '0', SUBSCRIPTION_EVENTS_QUEUE: queue, SUBSCRIPTION_EVENTS_RETRY_DELAYS_MS: '50' },
    });
    billing = await startBilling({ bus: await world.bus() });
    env = { BILLING_DATABASE_URL: billing.database.url };
  }, 180_000);
  afterAll(async () => {
    await billing?.stop();
    await identity?.stop();
    await world?.close();
  });

  const quotaOf = async (userId: number) => (await identity.cachedAuthz(userId))?.record.quota;
  const planQuota = async (planId: string) => {
    const plans = subscriptionPlanListResponseSchema.parse(await (await billing.call('GET', PLANS_PATH)).json());
    return plans.items.find((plan) => plan.id === planId)?.quota;
  };

  async function subscriber(planId: string): Promise<number> {
    const { user } = await registered(identity);
    expect((await billing.subscribe(user.id, { planId })).status).toBe(201);
    await waitFor(`user ${user.id} on ${planId}`, async () => (await quotaOf(user.id))?.plan === planId);
    return user.id;
  }

  it('subscribing brings the plan quota; set-quota and clear-quota reach every subscriber of that plan only', async () => {
    const monthly = [await subscriber('monthly'), await subscriber('monthly')];
    const yearly = await subscriber('yearly');
    expect(await quotaOf(monthly[0]!)).toEqual({ plan: 'monthly', perMonth: 1_000_000, perDay: null });

    const set = await runCli(['plans', 'set-quota', 'monthly', '5000/1d'], env);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toContain('Plan monthly: quota now 1000000/1mo,5000/1d');
    expect(await planQuota('monthly')).toEqual({ perMonth: 1_000_000, perDay: 5000 });
    for (const id of monthly) await waitFor(`user ${id} with the daily cap`, async () => (await quotaOf(id))?.perDay === 5000);
    expect(await quotaOf(yearly)).toEqual({ plan: 'yearly', perMonth: 1_000_000, perDay: null });

    expect((await runCli(['plans', 'set-quota', 'monthly', '20000/1mo'], env)).code).toBe(0);
    await waitFor('the monthly cap', async () => (await quotaOf(monthly[1]!))?.perMonth === 20_000);
    expect(await quotaOf(monthly[1]!)).toEqual({ plan: 'monthly', perMonth: 20_000, perDay: 5000 });

    expect((await runCli(['plans', 'clear-quota', 'monthly', '1d'], env)).code).toBe(0);
    await waitFor('the daily cap gone', async () => (await quotaOf(monthly[0]!))?.perDay === null);
    expect(await planQuota('monthly')).toEqual({ perMonth: 20_000, perDay: null });
    // A user subscribing now gets the quota as it is now.
    expect(await quotaOf(await subscriber('monthly'))).toEqual({ plan: 'monthly', perMonth: 20_000, perDay: null });

    const list = await runCli(['plans', 'list'], env);
    expect(list.stdout).toContain('monthly\tMonthly\tquota 20000/1mo');
    expect(list.stdout).toContain('free\tFree\tquota 10000/1mo,1000/1d');
  });

  it('clear-quota without a period removes both caps: the plan has no quota', async () => {
    const id = await subscriber('lifetime');
    expect((await runCli(['plans', 'clear-quota', 'lifetime'], env)).stdout).toContain('Plan lifetime: quota now none');
    await waitFor('no quota', async () => (await quotaOf(id)) === null);
  });

  it('--help explains the commands; bad input is a clear error, exit 1, nothing changed', async () => {
    const help = await runCli(['--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('plans set-quota <planId> <requests>/<period>');
    expect(help.stdout).toContain('plans clear-quota <planId> [1d|1mo]');
    const cases: [string[], string][] = [
      [['plans', 'set-quota', 'monthly', '5000/1w'], 'is not <requests>/<period>'],
      [['plans', 'set-quota', 'monthly', '0/1d'], 'requests must be between 1 and'],
      [['plans', 'set-quota', 'monthly'], 'set-quota needs <planId> <requests>/<period>'],
      [['plans', 'set-quota', 'platinum', '10/1d'], 'No plan "platinum"'],
      [['plans', 'clear-quota', 'monthly', '1y'], 'Unknown period "1y"'],
      [['plans', 'rename'], 'Unknown plans command "rename"'],
      [['plans', 'set-quota', 'monthly', '10/1d', 'extra'], 'Unexpected argument "extra"'],
      [['prices'], 'Unknown command "prices"'],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, env);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 1, stderr: expect.stringContaining(message) });
    }
    expect(await planQuota('yearly')).toEqual({ perMonth: 1_000_000, perDay: null });
  });
});
