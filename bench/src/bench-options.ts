import { parseArgs, type ParseArgsConfig } from 'node:util';

type OptionSpecs = NonNullable<ParseArgsConfig['options']>;
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;
type Parsed<O extends OptionSpecs> = ReturnType<typeof parseArgs<{ options: O & typeof HELP_OPTION }>>['values'];

/**
 * A bench script's command line: its options plus `--help`/`-h`, which prints the script's help
 * and exits 0. Unknown options stop the script with parseArgs' message.
 */
export function benchOptions<const O extends OptionSpecs>(help: string, options: O): Parsed<O> {
  const { values } = parseArgs({ options: { ...options, ...HELP_OPTION } }) as { values: Record<string, unknown> };
  if (values.help === true) {
    console.log(help);
    process.exit(0);
  }
  return values as Parsed<O>;
}

/**
 * The bus the keys service publishes its events on (it needs one to start alone): this machine's
 * RabbitMQ (AMQP_URL, else guest on 127.0.0.1), on an exchange of the run's own so nothing else sees them.
 */
export function keysBusEnv(tag: string): Record<string, string> {
  return { AMQP_URL: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', BUS_EXCHANGE: `${tag}.events` };
}

/** The keys service's environment in a bench run: its database and the seeded system:full-access key the run calls with. */
export function seededKeysEnv(databaseUrl: string, system: { key: string; secret: string }): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    SEED_API_KEY: system.key,
    SEED_API_SECRET: system.secret,
    SEED_API_SCOPES: 'system:full-access',
  };
}
