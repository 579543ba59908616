import { UsageError, assertNoOperands, cliStoreEnvironment, openCliStore, runCli, type CliStore } from '@acs/cli';
import { webhooksConfigSchema } from './config.js';
import { disableEndpoint, type EndpointRow } from './data-access/endpoints-repository.js';
import { pruneOlderThan } from './data-access/deliveries-repository.js';
import { resealSecrets } from './data-access/reseal-secrets.js';
import { previousBoxKeys } from './domain/secret-box.js';
import { WEBHOOKS_MIGRATIONS_DIR } from './service.js';

const HELP = `Look after users' webhook endpoints (operators).

Usage: npm run webhooks -- <command> [arguments]

Commands:
  endpoints [--disabled] [--user <id>]
        Every endpoint: id, user, state, the events, the URL, and why it is disabled. --disabled: only
        those; --user: only that user's.
  disable <endpointId> <reason...>
        Stop deliveries to an endpoint (abuse, an address that should not be called); its owner sees
        the reason and may enable it again.
  prune --older-than-days <n>
        Delete delivered and failed deliveries (with their attempts) older than n days now; the service
        does it hourly with WEBHOOKS_RETENTION_DAYS.
  reseal
        Seal every endpoint's signing secrets again under WEBHOOKS_SECRET_KEY, reading each under it or
        WEBHOOKS_SECRET_KEY_PREVIOUS: the step of a key rotation after every webhooks pod has both
        (docs/security.md). 500 endpoints per transaction. Prints how many were resealed, already
        current, and unreadable (under neither key: their ids, left as they are; exit 1). A replaced
        secret whose 24 h of signing are over is dropped, not resealed. A second run changes nothing.

Options:
  -h, --help  Show this text.

${cliStoreEnvironment('webhooks', false, [
  ['WEBHOOKS_SECRET_KEY', "reseal: the webhooks service's current key (required)"],
  ['WEBHOOKS_SECRET_KEY_PREVIOUS', 'reseal: the key it replaces, while a rotation is under way (several: comma-separated)'],
])}`;

/** reseal reads the keys as the service does (the same checks); the other commands need none. */
const KEY_VARIABLES = {
  WEBHOOKS_SECRET_KEY: webhooksConfigSchema.shape.WEBHOOKS_SECRET_KEY,
  WEBHOOKS_SECRET_KEY_PREVIOUS: webhooksConfigSchema.shape.WEBHOOKS_SECRET_KEY_PREVIOUS,
};

/** Progress per batch, then the totals; false (exit 1) when some endpoint's secret fits neither key. */
async function reseal(store: CliStore<{ WEBHOOKS_SECRET_KEY: string; WEBHOOKS_SECRET_KEY_PREVIOUS?: string | undefined }>) {
  const keys = { current: store.env.WEBHOOKS_SECRET_KEY, previous: previousBoxKeys(store.env) };
  const counts = await resealSecrets(store.db, keys, {
    onBatch: (totals) =>
      console.log(
        `... ${totals.resealed + totals.alreadyCurrent + totals.unreadable.length} endpoints looked at, ${totals.resealed} resealed so far`,
      ),
  });
  for (const id of counts.unreadable) console.log(`unreadable\t${id}`);
  console.log(`Resealed ${counts.resealed}, already current ${counts.alreadyCurrent}, unreadable ${counts.unreadable.length} (endpoints).`);
  if (counts.unreadable.length === 0) return true;
  console.error(
    `${counts.unreadable.length} endpoints have a secret that fits neither key; they are left as they are, and their deliveries cannot be signed (docs/security.md, "Rotating each secret").`,
  );
  return false;
}

const line = (row: EndpointRow): string =>
  [row.id, `user ${row.user_id}`, row.enabled ? 'enabled' : 'disabled', row.events.join(','), row.url, row.disabled_reason ?? ''].join(
    '\t',
  );

const STORE = { service: 'webhooks', cli: 'webhooks cli', migrationsDir: WEBHOOKS_MIGRATIONS_DIR, sharedCache: false } as const;

runCli({
  help: HELP,
  commands: ['endpoints', 'disable', 'prune', 'reseal'],
  options: { disabled: { type: 'boolean' }, user: { type: 'string' }, 'older-than-days': { type: 'string' } },
  async run({ command, operands, values }) {
    if (command === 'disable' && (operands.length < 2 || !/^[0-9a-f-]{36}$/i.test(operands[0]!)))
      throw new UsageError('disable needs <endpointId> <reason>. Run with --help.');
    if (command === 'endpoints' && values.user !== undefined && !/^[1-9][0-9]{0,17}$/.test(values.user))
      throw new UsageError(`--user "${values.user}" is not a user id`);
    const days = Number(values['older-than-days']);
    if (command === 'prune' && !(Number.isInteger(days) && days >= 1)) throw new UsageError('prune needs --older-than-days <n>, n >= 1');
    if (command === 'reseal') {
      assertNoOperands(operands);
      const store = await openCliStore({ ...STORE, env: KEY_VARIABLES });
      return reseal(store).finally(() => store.close());
    }
    const store = await openCliStore(STORE);
    try {
      if (command === 'endpoints') {
        const { rows } = await store.db.query<EndpointRow>(
          `SELECT * FROM endpoints WHERE ($1::boolean IS NOT TRUE OR NOT enabled) AND ($2::bigint IS NULL OR user_id = $2) ORDER BY created_at`,
          [values.disabled === true, values.user ?? null],
        );
        for (const row of rows) console.log(line(row));
        if (rows.length === 0) console.log('No endpoints.');
        return;
      }
      if (command === 'disable') {
        const [id, ...reason] = operands;
        const { rowCount } = await store.db.query('SELECT 1 FROM endpoints WHERE id = $1', [id]);
        if (rowCount === 0) throw new UsageError(`No endpoint ${id} (npm run webhooks -- endpoints lists them)`);
        await disableEndpoint(store.db, id!, `Disabled by an operator: ${reason.join(' ')}`);
        console.log(`Endpoint ${id} is disabled; its deliveries wait until its owner enables it.`);
        return;
      }
      const pruned = await pruneOlderThan(store.db, days);
      console.log(`Deleted ${pruned.deliveries} deliveries and ${pruned.events} processed event ids older than ${days} days.`);
    } finally {
      await store.close();
    }
  },
});
