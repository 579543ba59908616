import { UsageError, cliStoreEnvironment, openCliStore, runCli } from '@acs/cli';
import { disableEndpoint, type EndpointRow } from './data-access/endpoints-repository.js';
import { pruneOlderThan } from './data-access/deliveries-repository.js';
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

Options:
  -h, --help  Show this text.

${cliStoreEnvironment('webhooks', false)}`;

const line = (row: EndpointRow): string =>
  [row.id, `user ${row.user_id}`, row.enabled ? 'enabled' : 'disabled', row.events.join(','), row.url, row.disabled_reason ?? ''].join(
    '\t',
  );

runCli({
  help: HELP,
  commands: ['endpoints', 'disable', 'prune'],
  options: { disabled: { type: 'boolean' }, user: { type: 'string' }, 'older-than-days': { type: 'string' } },
  async run({ command, operands, values }) {
    if (command === 'disable' && (operands.length < 2 || !/^[0-9a-f-]{36}$/i.test(operands[0]!)))
      throw new UsageError('disable needs <endpointId> <reason>. Run with --help.');
    if (command === 'endpoints' && values.user !== undefined && !/^[1-9][0-9]{0,17}$/.test(values.user))
      throw new UsageError(`--user "${values.user}" is not a user id`);
    const days = Number(values['older-than-days']);
    if (command === 'prune' && !(Number.isInteger(days) && days >= 1)) throw new UsageError('prune needs --older-than-days <n>, n >= 1');
    const store = await openCliStore({
      service: 'webhooks',
      cli: 'webhooks cli',
      migrationsDir: WEBHOOKS_MIGRATIONS_DIR,
      sharedCache: false,
    });
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
