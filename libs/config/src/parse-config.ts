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

type Env = Record<string, string | undefined>;

/** Parses the environment with a zod object schema whose keys are the variable names. */
export function parseConfig<S extends z.ZodType>(service: string, schema: S, env: Env = process.env): z.infer<S> {
  // Empty strings count as unset: `FOO= node main.js` should fall back to the default.
  const cleaned: Env = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') cleaned[name] = value;
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => ({
    variable: issue.path.map(String).join('.') || '(environment)',
    expected: issue.message,
  }));
  throw new ConfigError(service, problems);
}

/** For main.ts: a bad environment ends the process with a clear message and a non-zero code. */
export function loadConfigOrExit<S extends z.ZodType>(service: string, schema: S, env: Env = process.env): z.infer<S> {
  try {
    return parseConfig(service, schema, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
