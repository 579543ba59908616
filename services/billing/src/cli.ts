import { UsageError, cliStoreEnvironment, openCliStore, runCli } from '@acs/cli';
import { formatPlanQuota, parseQuotaCap, type PlanQuota } from '@acs/contracts';
import { listPlans } from './data-access/plans-repository.js';
import { setPlanQuota } from './domain/set-plan-quota.js';
import { BILLING_MIGRATIONS_DIR } from './service.js';

const HELP = `Manage subscription plans.

Usage: npm run billing -- plans <command> [arguments]

Commands:
  plans list
        The plans with their quotas.
  plans set-quota <planId> <requests>/<period>
        Set one cap of a plan's quota: requests per UTC day (period 1d) or per UTC calendar month
        (1mo), all of a subscriber's keys together; the other cap is kept. E.g. 100000/1mo, 5000/1d.
  plans clear-quota <planId> [1d|1mo]
        Remove one cap (or, without a period, both): no limit for that period.

A change goes to identity as a plan.quota_changed event (billing's outbox; published within a
second while billing runs), which rewrites the authorization record of every user subscribed to the
plan: the gateway applies the new quota on each such user's next request after that.

Options:
  -h, --help  Show this text.

${cliStoreEnvironment('billing', false)}`;

const PERIOD_FIELD = { '1d': 'perDay', '1mo': 'perMonth' } as const;

/** The change a set-quota or clear-quota command asks for. */
function changeOf(command: string, arg: string | undefined): Partial<PlanQuota> {
  if (command === 'set-quota') {
    if (arg === undefined) throw new UsageError('set-quota needs <planId> <requests>/<period>, e.g. monthly 100000/1mo. Run with --help.');
    const cap = parseQuotaCap(arg);
    if (typeof cap === 'string') throw new UsageError(cap);
    return cap.period === 'day' ? { perDay: cap.requests } : { perMonth: cap.requests };
  }
  if (arg === undefined) return { perDay: null, perMonth: null };
  if (arg !== '1d' && arg !== '1mo') throw new UsageError(`Unknown period "${arg}": expected 1d or 1mo`);
  return { [PERIOD_FIELD[arg]]: null };
}

runCli({
  help: HELP,
  commands: ['plans'],
  options: {},
  async run({ operands }) {
    const [sub, planId, arg, extra] = operands;
    if (sub !== 'list' && sub !== 'set-quota' && sub !== 'clear-quota')
      throw new UsageError(`Unknown plans command "${sub ?? ''}": expected list, set-quota or clear-quota. Run with --help.`);
    if (sub !== 'list' && !planId) throw new UsageError(`${sub} needs a plan id (npm run billing -- plans list shows them)`);
    if (extra !== undefined || (sub === 'list' && planId !== undefined))
      throw new UsageError(`Unexpected argument "${extra ?? planId}". Run with --help.`);
    const change = sub === 'list' ? null : changeOf(sub, arg);
    const store = await openCliStore({ service: 'billing', cli: 'billing cli', migrationsDir: BILLING_MIGRATIONS_DIR, sharedCache: false });
    try {
      if (change === null) {
        for (const plan of await listPlans(store.db)) console.log(`${plan.id}\t${plan.name}\tquota ${formatPlanQuota(plan.quota)}`);
        return;
      }
      const changed = await setPlanQuota(store.db, planId!, change);
      if (!changed) throw new UsageError(`No plan "${planId}" (npm run billing -- plans list shows them)`);
      console.log(
        `Plan ${changed.plan.id}: quota now ${formatPlanQuota(changed.plan.quota)}. Identity applies it to every subscriber of the plan once billing publishes event ${changed.outboxId} of its outbox.`,
      );
    } finally {
      await store.close();
    }
  },
});
