import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { gatewayConfigSchema } from '../../gateway/src/config.js';
import { billingConfigSchema } from '../../services/billing/src/config.js';
import { catalogConfigSchema } from '../../services/catalog/src/config.js';
import { dashboardConfigSchema } from '../../services/dashboard/src/config.js';
import { deviceConfigSchema } from '../../services/device/src/config.js';
import { identityConfigSchema } from '../../services/identity/src/config.js';
import { keysConfigSchema } from '../../services/keys/src/config.js';
import { webhooksConfigSchema } from '../../services/webhooks/src/config.js';

// The processes our image runs, each with the zod schema its main.ts parses the environment with.

export const ROOT = new URL('../../', import.meta.url);
export const readRepoFile = (path: string): string => readFileSync(new URL(path, ROOT), 'utf8');
export const repoFileExists = (path: string): boolean => existsSync(new URL(path, ROOT));

export interface Component {
  /** Also its compose service, Deployment and Service name. */
  name: string;
  /** Package folder: `<dir>/src/main.ts` is the entry, `<dir>/dist/main.js` its build. */
  dir: string;
  schema: z.ZodObject;
  /** The name main.ts passes to loadConfigOrExit, checked so this table cannot drift from the code. */
  schemaName: string;
  /**
   * A public entry: takes traffic from outside (published by compose, behind the Ingress, open to
   * anyone in the NetworkPolicies) and is called by no process of ours but as a client would. The
   * others are services, reached through the gateway (its `<NAME>_URL`).
   */
  public?: true;
}

export const COMPONENTS: readonly Component[] = [
  { name: 'gateway', dir: 'gateway', schema: gatewayConfigSchema, schemaName: 'gatewayConfigSchema', public: true },
  { name: 'keys', dir: 'services/keys', schema: keysConfigSchema, schemaName: 'keysConfigSchema' },
  { name: 'identity', dir: 'services/identity', schema: identityConfigSchema, schemaName: 'identityConfigSchema' },
  { name: 'catalog', dir: 'services/catalog', schema: catalogConfigSchema, schemaName: 'catalogConfigSchema' },
  { name: 'device', dir: 'services/device', schema: deviceConfigSchema, schemaName: 'deviceConfigSchema' },
  { name: 'billing', dir: 'services/billing', schema: billingConfigSchema, schemaName: 'billingConfigSchema' },
  { name: 'webhooks', dir: 'services/webhooks', schema: webhooksConfigSchema, schemaName: 'webhooksConfigSchema' },
  { name: 'dashboard', dir: 'services/dashboard', schema: dashboardConfigSchema, schemaName: 'dashboardConfigSchema', public: true },
];

export const publicComponents = (): Component[] => COMPONENTS.filter((c) => c.public);

/**
 * Entries known and deliberately left out of docker-compose.yml and k8s/ (none today). A new entry
 * fails the tests until it is deployed: a compose service, a Deployment, its schema above, and any
 * public/ assets in the Dockerfile's runtime copy.
 */
const NOT_YET_DEPLOYED: readonly string[] = [];

/** Every standalone process of the repository to deploy: the gateway and each service with a src/main.ts. */
export function standaloneEntries(): string[] {
  const services = readdirSync(new URL('services/', ROOT)).map((name) => `services/${name}`);
  return ['gateway', ...services].filter((dir) => repoFileExists(`${dir}/src/main.ts`) && !NOT_YET_DEPLOYED.includes(dir)).sort();
}

/** `["node", "services/catalog/dist/main.js"]` → the catalog component, or why it is not one. */
export function componentOfCommand(command: unknown): Component | string {
  if (!Array.isArray(command) || command[0] !== 'node' || command.length !== 2)
    return `command ${JSON.stringify(command)} is not ["node", "<package>/dist/main.js"]`;
  const match = /^(.+)\/dist\/main\.js$/.exec(String(command[1]));
  if (!match) return `entry ${String(command[1])} is not <package>/dist/main.js`;
  const dir = match[1]!;
  if (!repoFileExists(`${dir}/src/main.ts`)) return `entry ${String(command[1])}: ${dir}/src/main.ts does not exist`;
  return (
    COMPONENTS.find((component) => component.dir === dir) ?? `${dir} has no entry in test/deploy/components.ts (add its config schema)`
  );
}

/** The schema's variables that have neither a default nor `.optional()`. */
function schemaRequired(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape)
    .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
    .map(([name]) => name);
}

/**
 * What the process needs beyond its schema when it runs alone in a container: the variables its
 * main.ts refuses to start (or should not start) without, `if (!config.X)` or
 * `requireWhenRunningAlone(name, 'X', ...)`, and DATABASE_URL, since
 * without it a service would put an embedded database on the container's (read-only) disk.
 */
export function containerRequired(component: Component): string[] {
  const main = readRepoFile(`${component.dir}/src/main.ts`);
  const checked = [...main.matchAll(/if \(!config\.([A-Z0-9_]+)\)|requireWhenRunningAlone\(\s*'[^']+',\s*'([A-Z0-9_]+)'/g)].map(
    (m) => (m[1] ?? m[2])!,
  );
  const database = 'DATABASE_URL' in component.schema.shape ? ['DATABASE_URL'] : [];
  return [...new Set([...schemaRequired(component.schema), ...checked, ...database])].sort();
}

/** The schema name main.ts passes to loadConfigOrExit. */
export function mainSchemaName(component: Component): string | undefined {
  return /loadConfigOrExit\(\s*'[^']+',\s*(\w+)/.exec(readRepoFile(`${component.dir}/src/main.ts`))?.[1];
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );

/**
 * Whether the process serves Prometheus metrics: its sources use @acs/metrics (every service's
 * app and the gateway's listener do). The dashboard does not yet; once it does, the k8s tests ask
 * for its scrape annotations.
 */
export const servesMetrics = (component: Component): boolean =>
  sourceFiles(fileURLToPath(new URL(`${component.dir}/src/`, ROOT))).some((file) => readFileSync(file, 'utf8').includes("'@acs/metrics'"));

/** The seconds a process takes at most to stop after SIGTERM (stopOnSignals' default grace). */
export function appStopGraceSeconds(): number {
  const match = /graceMs = ([\d_]+)/.exec(readRepoFile('libs/http/src/stop-on-signals.ts'));
  if (!match) throw new Error('stopOnSignals no longer declares `graceMs = <ms>`: update test/deploy/components.ts');
  return Number(match[1]!.replace(/_/g, '')) / 1000;
}
