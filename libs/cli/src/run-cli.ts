import { parseArgs } from 'node:util';
import { privateFileModes } from '@acs/db';
import { UsageError } from './usage-error.js';

/** The options a command takes, as node:util's parseArgs reads them (`--name value`, `--flag`). */
export type CliOptions = Record<string, { type: 'string' | 'boolean'; short?: string }>;
type CliValues<O extends CliOptions> = { [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean };

export interface CliInvocation<O extends CliOptions> {
  command: string;
  /** The positional arguments after the command. */
  operands: string[];
  values: CliValues<O>;
}

export interface CliDefinition<O extends CliOptions> {
  /** Printed for --help, -h, and a call without a command. */
  help: string;
  commands: readonly string[];
  /** The command's options (--help is added). */
  options: O;
  /** Runs one command; `false` means it failed and said why (exit 1), anything else exit 0. */
  run(invocation: CliInvocation<O>): Promise<unknown>;
}

/** What the operator reads when a command fails: a sentence, never a stack. */
function failureMessage(err: unknown): string {
  // Duck-typed: errors from node:util may come from another realm (a test's VM context).
  if (typeof err !== 'object' || err === null || !('message' in err)) return String(err);
  // node:util's parseArgs (unknown option, missing value): point to the help text.
  if ('code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) return `${String(err.message)}. Run with --help.`;
  return String(err.message);
}

/** Parses the arguments and runs the command; resolves to the exit code. */
export async function executeCli<O extends CliOptions>(definition: CliDefinition<O>, argv: string[]): Promise<number> {
  try {
    const options: CliOptions = { ...definition.options, help: { type: 'boolean', short: 'h' } };
    const parsed = parseArgs({ args: argv, allowPositionals: true, options });
    const values = parsed.values as CliValues<O> & { help?: boolean };
    const [command, ...operands] = parsed.positionals;
    if (values.help === true || command === undefined) {
      console.log(definition.help);
      return 0;
    }
    if (!definition.commands.includes(command)) throw new UsageError(`Unknown command "${command}". Run with --help.`);
    return (await definition.run({ command, operands, values })) === false ? 1 : 0;
  } catch (err) {
    console.error(failureMessage(err));
    return 1;
  }
}

/** The entry of a CLI file: runs `process.argv` and exits with 0 (done) or 1 (usage error, failure). */
export function runCli<O extends CliOptions>(definition: CliDefinition<O>): void {
  // Before any command opens DATA_DIR: what a CLI creates there (the embedded database when no system runs) is its user's alone.
  privateFileModes();
  void executeCli(definition, process.argv.slice(2)).then((code) => process.exit(code));
}

/** For commands that take no operand: a stray word is a usage error, not silently ignored. */
export function assertNoOperands(operands: readonly string[]): void {
  if (operands.length > 0) throw new UsageError(`Unexpected argument "${operands[0]}". Run with --help.`);
}
