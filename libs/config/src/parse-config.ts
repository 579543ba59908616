import type { z } from 'zod';

/** One bad variable: its name and what was expected, written for an operator reading a crash log. */
export interface ConfigProblem {
  variable: string;
  expected: string;
}

export class ConfigError extends Error {
  readonly problems: ConfigProblem[];

  constructor(service: string, problems: ConfigProblem[]) {
    const lines = problems.map((p) => `  ${p.variable}: ${p.expected}`).join('\n');
    super(`${service}: invalid configuration\n${lines}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export type Env = Record<string, string | undefined>;

/** Empty strings count as unset: `FOO= node main.js` should fall back to the default. */
export function withoutEmptyValues(env: Env): Env {
  const cleaned: Env = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') cleaned[name] = value;
  return cleaned;
}

/** The problems of a failed parse, one per issue, named by variable. */
export function configProblems(error: z.ZodError): ConfigProblem[] {
  return error.issues.map((issue) => ({
    variable: issue.path.map(String).join('.') || '(environment)',
    expected: issue.message,
  }));
}

/** Parses the environment with a zod object schema whose keys are the variable names. */
export function parseConfig<S extends z.ZodType>(service: string, schema: S, env: Env = process.env): z.infer<S> {
  const result = schema.safeParse(withoutEmptyValues(env));
  if (result.success) return result.data;
  throw new ConfigError(service, configProblems(result.error));
}

function exitWith(err: ConfigError): never {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}

/** For main.ts: a bad environment ends the process with a clear message and a non-zero code. */
export function loadConfigOrExit<S extends z.ZodType>(service: string, schema: S, env: Env = process.env): z.infer<S> {
  try {
    return parseConfig(service, schema, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return exitWith(err);
  }
}

/**
 * For main.ts: a variable that may stay unset only inside `npm start`, which passes its in-process
 * cache or bus instead. Alone, its absence ends the process like any other bad variable.
 */
export function requireWhenRunningAlone<T>(service: string, variable: string, value: T | undefined): T {
  if (value !== undefined) return value;
  return exitWith(
    new ConfigError(service, [{ variable, expected: 'required when the service runs alone (npm start runs the embedded mode)' }]),
  );
}
