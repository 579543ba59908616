import { KEY_ENVIRONMENTS, type KeyEnvironment } from '@acs/auth';
import { operatorActor } from '@acs/audit';
import {
  UsageError,
  cliStoreEnvironment,
  notWrittenThroughWarning,
  openCliStore,
  runCli,
  type CliInvocation,
  type CliOptions,
  type CliStore,
} from '@acs/cli';
import {
  API_KEY_CACHE_TTL_SECONDS,
  API_KEY_ROLL_DEFAULT_GRACE_SECONDS,
  API_KEY_ROLL_MAX_GRACE_SECONDS,
  formatRateLimits,
  ipAllowListSchema,
  parseRateLimitsText,
  type RateLimits,
} from '@acs/contracts';
import type { ApiKey } from './domain/api-key.js';
import { createApiKey } from './domain/create-key.js';
import type { KeysDeps } from './domain/deps.js';
import { parseExpiresIn } from './domain/expiry-rules.js';
import { changeApiKey, findKey, listKeys, revokeApiKey, rollKey } from './domain/operator-keys.js';
import { parseOperatorScopes } from './domain/scope-rules.js';
import { keysConfigSchema } from './config.js';
import { reportLeakedSecrets } from './domain/report-leak.js';
import { KEYS_MIGRATIONS_DIR } from './service.js';
import { ownerEmails, ownerLabel } from './owner-emails.js';

const HELP = `Manage API keys (the only tool, with the start-up seed, that can create system:full-access keys).

Usage: npm run keys -- <command> [options]

Commands:
  create --scopes "<scope> <scope>" [--name NAME] [--env live|test] [--owner USER_ID] [--expires-in 30d]
        Create a key; prints the key and its secret once. Without --owner it is a system key.
        --expires-in: the key answers 401 from then on (s, m, h or d); without it the key does not expire.
  list [--owner USER_ID]
        List keys, newest first (never secrets), each owner with their e-mail (read from identity's
        database); a rolled key shows until when its old secret works.
  set-scopes <id|key> --scopes "<scope> <scope>"
        Replace a key's scopes; the gateway applies them on the next request.
  set-limits <id|key> --limits "<limit>/<n><s|m|h|d>,..." | --clear
        Set a key's own rate limits (up to 4 windows, e.g. "20/1s,50000/1d"), or clear them so the
        gateway's default for the key's environment applies. Applies on the key's next request.
  set-allow-list <id|key> --ranges "<cidr>,<cidr>" | --clear
        Set the addresses a key may be used from (IPv4/IPv6 CIDR ranges, at most 100), or clear them so
        any address may use it. Applies on the key's next request.
  roll <id|key> [--grace 1h]
        Give the key a new secret (printed once); the old one keeps working for the grace period
        (default 1d, at most 7d; 0s stops it at once, for a leaked secret).
  revoke <id|key>
        Revoke a key; it stops working on the next request. The record is kept.
  report-leak <secret|-> [--url URL]
        A secret was found where it must not be: every key whose current or replaced secret it is
        is revoked (reason exposed), with an api_key.exposed event and an audit entry; every gateway
        refuses it on its next request. "-" reads the secret from stdin (keeps it out of the shell
        history). --url: where it was found, for the owner. A secret of no key changes nothing.

Scopes: auth:login auth:register register:device read:devices write:devices system:full-access

${cliStoreEnvironment('keys', true, [
  ['IDENTITY_DATABASE_URL', "identity's database (list reads owners' e-mails there); default as DATABASE_URL names it"],
  ['KEY_PREFIX', 'key prefix of this deployment (default acs)'],
])}`;

const NOT_WRITTEN_THROUGH = notWrittenThroughWarning('cached copy of the key', API_KEY_CACHE_TTL_SECONDS);

function printKey(k: ApiKey, emails: ReadonlyMap<number, string> = new Map()): void {
  const owner = ownerLabel(k.ownerUserId, emails);
  const expired = k.expiresAt !== null && k.expiresAt.getTime() <= Date.now();
  const state = k.revokedAt
    ? `revoked ${k.revokedAt.toISOString()}${k.revokedReason === 'exposed' ? ' (exposed: its secret leaked)' : ''}`
    : expired
      ? `expired ${k.expiresAt!.toISOString()}`
      : k.expiresAt
        ? `active until ${k.expiresAt.toISOString()}`
        : 'active';
  const limits = k.rateLimits ? `limits ${formatRateLimits(k.rateLimits)}` : 'default limits';
  const allowed = k.ipAllowList ? `  from ${k.ipAllowList.join(',')}` : '';
  // During a roll's grace period both secrets work: say until when the replaced one does.
  const graceEnds = k.previousSecretEndsAt;
  const rolled = !k.revokedAt && graceEnds && graceEnds.getTime() > Date.now() ? `  old secret until ${graceEnds.toISOString()}` : '';
  console.log(
    `${k.id}  ${k.key}  [${k.scopes.join(' ')}]  ${k.environment}  ${owner}  ${state}${rolled}  ${limits}${allowed}  "${k.name}"  created ${k.createdAt.toISOString()}`,
  );
}

/** set-limits: exactly one of --limits "<list>" and --clear (null: the gateway's default applies). */
function rateLimitsOption(limits: string | undefined, clear: boolean | undefined): RateLimits | null {
  if ((limits === undefined) === !clear) throw new UsageError('set-limits needs either --limits "20/1s,50000/1d" or --clear');
  if (clear) return null;
  try {
    return parseRateLimitsText(limits!);
  } catch (err) {
    throw new UsageError(`--limits: ${(err as Error).message}`);
  }
}

/** set-allow-list: exactly one of --ranges "<cidr>,<cidr>" and --clear (null: any address). */
function allowListOption(ranges: string | undefined, clear: boolean | undefined): string[] | null {
  if ((ranges === undefined) === !clear)
    throw new UsageError('set-allow-list needs either --ranges "203.0.113.0/24,2001:db8::/32" or --clear');
  if (clear) return null;
  const parsed = ipAllowListSchema.safeParse(ranges!.split(',').map((range) => range.trim()));
  if (!parsed.success) throw new UsageError(`--ranges: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  return parsed.data;
}

/** A duration option ("30d", "1h", "0s" where zero is allowed) in seconds. */
function secondsOption(name: string, text: string, allowZero: boolean): number {
  if (allowZero && /^0+[smhd]?$/.test(text)) return 0;
  try {
    return parseExpiresIn(text);
  } catch (err) {
    throw new UsageError(`--${name}: ${(err as Error).message}`);
  }
}

/** The owners' e-mails, or none (with one line on stderr saying why) when identity's database cannot be read. */
async function emailsOf(store: CliStore<unknown>, keys: readonly ApiKey[]): Promise<Map<number, string>> {
  const owners = [...new Set(keys.flatMap((k) => (k.ownerUserId === null ? [] : [k.ownerUserId])))];
  if (owners.length === 0) return new Map();
  try {
    return await ownerEmails(await store.peerDb('identity'), owners);
  } catch (err) {
    console.error(
      `Owners are shown without e-mail: identity's database could not be read (${(err as Error).message}). Set IDENTITY_DATABASE_URL to it.`,
    );
    return new Map();
  }
}

/** The secret report-leak names: the operand, or stdin for "-". */
async function leakedSecret(operand: string | undefined): Promise<string> {
  if (!operand) throw new UsageError('report-leak needs the leaked secret (or "-" to read it from stdin)');
  if (operand !== '-') return operand;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const secret = Buffer.concat(chunks).toString('utf8').trim();
  if (!secret) throw new UsageError('report-leak: stdin held no secret');
  return secret;
}

/** report-leak: revokes the keys the secret belongs to and says which. */
async function reportLeak(deps: KeysDeps, secret: string, url: string | undefined): Promise<void> {
  const [outcome] = await reportLeakedSecrets(deps, [{ secret, source: 'operator', url: url ?? null }]);
  if (outcome!.keyIds.length === 0) {
    console.log('No key has this secret (current or replaced): nothing changed.');
    return;
  }
  for (const keyId of outcome!.keyIds) {
    const state = outcome!.exposedNow.includes(keyId) ? 'revoked now (exposed)' : 'already reported exposed';
    console.log(`${keyId}: ${state}`);
    printKey(await findKey(deps, keyId));
  }
}

function keyIdOf(deps: KeysDeps, target: string | undefined): Promise<string> {
  if (!target) throw new UsageError('Name the key: its id or the key itself');
  return findKey(deps, target).then((found) => found.id);
}

const OPTIONS = {
  scopes: { type: 'string' },
  name: { type: 'string' },
  env: { type: 'string' },
  owner: { type: 'string' },
  limits: { type: 'string' },
  ranges: { type: 'string' },
  clear: { type: 'boolean' },
  'expires-in': { type: 'string' },
  grace: { type: 'string' },
  url: { type: 'string' },
} satisfies CliOptions;

type Invocation = CliInvocation<typeof OPTIONS>;

/** The options a command uses, parsed and checked before the store opens: a usage error opens no database. */
interface CommandInput {
  target: string | undefined;
  values: Invocation['values'];
  environment: KeyEnvironment;
  owner: number | undefined;
  scopes: string[] | undefined;
  rateLimits: RateLimits | null | undefined;
  ipAllowList: string[] | null | undefined;
  expiresInSeconds: number | undefined;
  leaked: string | undefined;
  graceSeconds: number;
}

async function commandInput({ command, operands: [target], values }: Invocation): Promise<CommandInput> {
  const environment = (values.env ?? 'live') as KeyEnvironment;
  if (!KEY_ENVIRONMENTS.includes(environment)) throw new UsageError('--env must be live or test');
  // Digits only: Number() would take '' as 0, '1e3' as 1000 and '-5' as a user id.
  const owner = values.owner === undefined ? undefined : /^[1-9][0-9]{0,15}$/.test(values.owner) ? Number(values.owner) : NaN;
  if (owner !== undefined && !Number.isSafeInteger(owner)) throw new UsageError('--owner must be a user id');
  const scopes = values.scopes === undefined ? undefined : parseOperatorScopes(values.scopes);
  if ((command === 'create' || command === 'set-scopes') && !scopes) throw new UsageError(`${command} needs --scopes "<scope> <scope>"`);
  const rateLimits = command === 'set-limits' ? rateLimitsOption(values.limits, values.clear) : undefined;
  const ipAllowList = command === 'set-allow-list' ? allowListOption(values.ranges, values.clear) : undefined;
  const expiresInSeconds = values['expires-in'] === undefined ? undefined : secondsOption('expires-in', values['expires-in'], false);
  const leaked = command === 'report-leak' ? await leakedSecret(target) : undefined;
  const graceSeconds = values.grace === undefined ? API_KEY_ROLL_DEFAULT_GRACE_SECONDS : secondsOption('grace', values.grace, true);
  if (graceSeconds > API_KEY_ROLL_MAX_GRACE_SECONDS) throw new UsageError(`--grace: at most ${API_KEY_ROLL_MAX_GRACE_SECONDS / 86_400}d`);
  return { target, values, environment, owner, scopes, rateLimits, ipAllowList, expiresInSeconds, leaked, graceSeconds };
}

/** The use cases' deps on the CLI's store. */
const cliDeps = (store: CliStore<{ KEY_PREFIX: string }>): KeysDeps => ({
  db: store.db,
  cache: store.cache,
  logger: store.logger,
  keyPrefix: store.env.KEY_PREFIX,
  onOutboxWrite: () => undefined,
  actor: operatorActor('keys cli'),
});

/** create: the new key and its secret, printed this once. */
async function create(deps: KeysDeps, input: CommandInput): Promise<void> {
  const expiresAt = input.expiresInSeconds === undefined ? null : new Date(Date.now() + input.expiresInSeconds * 1000);
  const { apiKey, secret } = await createApiKey(deps, {
    name: input.values.name ?? 'created with the keys CLI',
    scopes: input.scopes!,
    ownerUserId: input.owner ?? null,
    environment: input.environment,
    expiresAt,
  });
  console.log(`API key created (${apiKey.id}). The secret is shown this once: store it now.\n`);
  console.log(`X-Api-Key:    ${apiKey.key}`);
  console.log(`X-Api-Secret: ${secret}`);
  console.log(`Scopes:       ${apiKey.scopes.join(' ')}`);
  if (apiKey.expiresAt) console.log(`Expires:      ${apiKey.expiresAt.toISOString()}`);
}

/** roll: the new secret, printed this once, and until when the old one works. */
async function roll(deps: KeysDeps, input: CommandInput): Promise<void> {
  const { apiKey, secret } = await rollKey(deps, await keyIdOf(deps, input.target), input.graceSeconds);
  console.log(`New secret for ${apiKey.key} (${apiKey.id}), shown this once: store it now.\n`);
  console.log(`X-Api-Secret: ${secret}`);
  console.log(
    apiKey.previousSecretEndsAt
      ? `The old secret works until ${apiKey.previousSecretEndsAt.toISOString()}.`
      : 'The old secret no longer works.',
  );
}

/** list: every key (or the owner's), newest first, with the owners' e-mails. */
async function list(store: CliStore<unknown>, deps: KeysDeps, input: CommandInput): Promise<void> {
  const keys = await listKeys(deps, input.owner === undefined ? {} : { ownerUserId: input.owner });
  if (keys.length === 0) console.log('No API keys.');
  const emails = await emailsOf(store, keys);
  for (const k of keys) printKey(k, emails);
}

/** Runs one command, its options already checked, on the open store. */
async function runCommand(store: CliStore<unknown>, deps: KeysDeps, command: string, input: CommandInput): Promise<void> {
  const { target } = input;
  if (command === 'create') {
    await create(deps, input);
  } else if (command === 'roll') {
    await roll(deps, input);
  } else if (command === 'list') {
    await list(store, deps, input);
  } else if (command === 'set-scopes') {
    printKey(await changeApiKey(deps, await keyIdOf(deps, target), { scopes: input.scopes! }));
  } else if (command === 'set-limits') {
    printKey(await changeApiKey(deps, await keyIdOf(deps, target), { rateLimits: input.rateLimits! }));
  } else if (command === 'report-leak') {
    await reportLeak(deps, input.leaked!, input.values.url);
  } else if (command === 'set-allow-list') {
    printKey(await changeApiKey(deps, await keyIdOf(deps, target), { ipAllowList: input.ipAllowList! }));
  } else {
    printKey(await revokeApiKey(deps, await keyIdOf(deps, target)));
  }
}

runCli({
  help: HELP,
  commands: ['create', 'list', 'set-scopes', 'set-limits', 'set-allow-list', 'roll', 'revoke', 'report-leak'],
  options: OPTIONS,
  async run(invocation) {
    const input = await commandInput(invocation);
    const store = await openCliStore({
      service: 'keys',
      cli: 'keys cli',
      migrationsDir: KEYS_MIGRATIONS_DIR,
      sharedCache: true,
      peers: ['identity'],
      env: { KEY_PREFIX: keysConfigSchema.shape.KEY_PREFIX },
    });
    const deps = cliDeps(store);
    try {
      await runCommand(store, deps, invocation.command, input);
      // The write-through went to this process's own memory: a gateway caching the key elsewhere
      // (Redis, or the in-process cache of an `npm start` on PostgreSQL) still has the old record.
      if (
        store.cacheNotShared &&
        ['set-scopes', 'set-limits', 'set-allow-list', 'roll', 'revoke', 'report-leak'].includes(invocation.command)
      )
        console.error(NOT_WRITTEN_THROUGH);
    } finally {
      await store.close();
    }
  },
});
