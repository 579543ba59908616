import { parse } from 'yaml';
import { readRepoFile } from './components.js';
import { SECRET_FIXTURES, type ContainerEnv } from './env-check.js';

// docker-compose.yml as compose reads it: YAML merge keys (`<<: *app`) and ${VAR} interpolation.

export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: unknown;
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: unknown[];
  healthcheck?: { test?: unknown };
  depends_on?: Record<string, { condition?: string }> | string[];
  read_only?: boolean;
  stop_grace_period?: string;
  networks?: string[] | Record<string, unknown>;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
}

/** The networks a service is on: its list (or map), else compose's `default`. */
export const networksOf = (service: ComposeService): string[] =>
  service.networks === undefined ? ['default'] : Array.isArray(service.networks) ? service.networks : Object.keys(service.networks);

export const loadCompose = (text = readRepoFile('docker-compose.yml')): ComposeFile => parse(text, { merge: true }) as ComposeFile;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g;

/** Every ${VAR…} of the file, with whether compose refuses to start without it (`:?` / `?`). */
export function composeVariables(text = readRepoFile('docker-compose.yml')): Map<string, { required: boolean }> {
  const variables = new Map<string, { required: boolean }>();
  for (const match of text.matchAll(REFERENCE)) {
    const required = match[2]?.endsWith('?') ?? false;
    variables.set(match[1]!, { required: required || (variables.get(match[1]!)?.required ?? false) });
  }
  return variables;
}

/**
 * One value as compose would interpolate it. `lookup` gives a variable's value or undefined when
 * unset; `$$` is a literal `$`.
 */
export function interpolate(raw: string, lookup: (name: string) => string | undefined): string {
  return raw
    .replace(REFERENCE, (_all, name: string, operator: string | undefined, argument: string | undefined) => {
      const value = lookup(name);
      if (operator === ':-') return value ? value : (argument ?? '');
      if (operator === '-') return value ?? argument ?? '';
      return value ?? '';
    })
    .replace(/\$\$/g, '$');
}

/** A service's environment as written (before interpolation), whichever of compose's two forms it uses. */
export const rawEnvironment = (service: ComposeService): [string, string][] =>
  Array.isArray(service.environment)
    ? service.environment.map((line) => [line.split('=')[0]!, line.slice(line.indexOf('=') + 1)])
    : Object.entries(service.environment ?? {}).map(([name, value]) => [name, value === null ? '' : String(value)]);

/** A service's environment: with the fixtures for values, and in the worst case for what is guaranteed. */
export function composeEnv(service: ComposeService, variables: Map<string, { required: boolean }>): ContainerEnv {
  const entries = rawEnvironment(service);
  const values: Record<string, string> = {};
  const guaranteed = new Set<string>();
  for (const [name, raw] of entries) {
    values[name] = interpolate(raw, (variable) => SECRET_FIXTURES[variable]);
    // Worst case: the operator set only what compose insists on (`:?` somewhere in the file).
    const worst = interpolate(raw, (variable) => (variables.get(variable)?.required ? 'set' : undefined));
    if (worst !== '' && !/:\/\/[^/]*:@/.test(worst)) guaranteed.add(name);
  }
  return { values, guaranteed };
}

/** The variables `.env.example` lists (set or left empty). */
export const envExampleVariables = (text = readRepoFile('.env.example')): Set<string> =>
  new Set([...text.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]!));
