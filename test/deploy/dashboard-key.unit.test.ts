import { execFileSync } from 'node:child_process';
import { describe, expect, it } from '@jest/globals';
import { parseApiKey, SYSTEM_SCOPE } from '@acs/auth';
import { dashboardConfigSchema } from '../../services/dashboard/src/config.js';
import { keysConfigSchema } from '../../services/keys/src/config.js';
import { COMPONENTS, readRepoFile } from './components.js';
import { composeEnv, composeVariables, loadCompose, rawEnvironment, type ComposeFile } from './compose-file.js';
import { parsedConfig } from './env-check.js';
import { appliedManifests, appliedManifestsWith, type Manifest } from './k8s-files.js';
import { workloads } from './k8s-workloads.js';

// The dashboard presents its own system:full-access key; the keys service seeds exactly that key
// at start (SEED_API_KEY / SEED_API_SECRET). Both must be fed from one source, so they cannot
// disagree: one .env variable each in compose, one Secret key each in k8s.

const component = (name: string) => COMPONENTS.find((c) => c.name === name)!;

/** [keys' variable, the dashboard's variable] that must carry the same value. */
const PAIRS = [
  ['SEED_API_KEY', 'DASHBOARD_API_KEY'],
  ['SEED_API_SECRET', 'DASHBOARD_API_SECRET'],
] as const;

const hasSystemScope = (scopes: unknown): boolean => String(scopes).split(/\s+/).includes(SYSTEM_SCOPE);

function composeSeedProblems(file: ComposeFile): string[] {
  const variables = composeVariables();
  const keys = file.services.keys!;
  const dashboard = file.services.dashboard!;
  const raw = (service: typeof keys, name: string) => new Map(rawEnvironment(service)).get(name);
  // `${DASHBOARD_API_KEY:?…}` → DASHBOARD_API_KEY; anything else (a literal, two references) → undefined.
  const onlyReference = (value: string | undefined) => /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-?][^}]*)?\}$/.exec(value ?? '')?.[1];
  const problems: string[] = [];
  for (const [seed, own] of PAIRS) {
    const [seeded, presented] = [onlyReference(raw(keys, seed)), onlyReference(raw(dashboard, own))];
    if (!seeded || seeded !== presented)
      problems.push(
        `keys ${seed} (${String(raw(keys, seed))}) and dashboard ${own} (${String(raw(dashboard, own))}) are not the same .env variable`,
      );
    if (!composeEnv(keys, variables).guaranteed.has(seed)) problems.push(`keys ${seed} is not always set`);
  }
  const scopes = parsedConfig(component('keys'), composeEnv(keys, variables)).SEED_API_SCOPES;
  if (!hasSystemScope(scopes)) problems.push(`keys SEED_API_SCOPES is "${String(scopes)}", without ${SYSTEM_SCOPE}`);
  return problems;
}

function k8sSeedProblems(manifests: Manifest[]): string[] {
  const all = workloads(manifests).workloads;
  const keys = all.find((w) => w.component.name === 'keys')!;
  const dashboard = all.find((w) => w.component.name === 'dashboard')!;
  const source = (container: typeof keys.container, name: string) => {
    const entries = (container.env ?? []).filter((e) => e.name === name);
    const ref = entries.length === 1 ? entries[0]!.valueFrom?.secretKeyRef : undefined;
    return ref && !ref.optional ? `Secret ${ref.name} key ${ref.key}` : `${JSON.stringify(entries)} (not one required Secret key)`;
  };
  const problems: string[] = [];
  for (const [seed, own] of PAIRS) {
    const [seeded, presented] = [source(keys.container, seed), source(dashboard.container, own)];
    if (seeded !== presented || !seeded.startsWith('Secret '))
      problems.push(`keys ${seed} (${seeded}) and dashboard ${own} (${presented}) are not the same Secret key`);
  }
  const scopes = parsedConfig(keys.component, keys.env).SEED_API_SCOPES;
  if (!hasSystemScope(scopes)) problems.push(`keys SEED_API_SCOPES is "${String(scopes)}", without ${SYSTEM_SCOPE}`);
  return problems;
}

/** The node one-liners .env.example gives for the dashboard's key and secret. */
function documentedCommands(): Record<string, string> {
  const found: Record<string, string> = {};
  for (const match of readRepoFile('.env.example').matchAll(/^#\s+(DASHBOARD_API_KEY|DASHBOARD_API_SECRET):\s+node -e '([^']+)'\s*$/gm))
    found[match[1]!] = match[2]!;
  return found;
}
const run = (code: string): string => execFileSync(process.execPath, ['-e', code], { encoding: 'utf8' }).trim();

describe("the dashboard's API key is the keys service's seed key", () => {
  it('in docker-compose.yml: the same .env variables, always set, seeded with system:full-access', () => {
    expect(composeSeedProblems(loadCompose())).toEqual([]);
  });

  it('in k8s/: the same Secret keys, required, seeded with system:full-access', () => {
    expect(k8sSeedProblems(appliedManifests())).toEqual([]);
  });

  it('.env.example and k8s/README.md give commands that make a valid key (the keys service’s prefix) and secret', () => {
    const commands = documentedCommands();
    expect(Object.keys(commands).sort()).toEqual(['DASHBOARD_API_KEY', 'DASHBOARD_API_SECRET']);
    const prefixes = new Set([
      parsedConfig(component('keys'), composeEnv(loadCompose().services.keys!, composeVariables())).KEY_PREFIX,
      ...workloads(appliedManifests())
        .workloads.filter((w) => w.component.name === 'keys')
        .map((w) => parsedConfig(w.component, w.env).KEY_PREFIX),
    ]);
    const keys = [run(commands.DASHBOARD_API_KEY!), run(commands.DASHBOARD_API_KEY!)];
    expect(keys[0]).not.toBe(keys[1]);
    for (const key of keys) {
      expect(key).toMatch(/^[a-z][a-z0-9]{1,15}_(live|test)_[A-Za-z0-9]{24}$/);
      expect([...prefixes].map((prefix) => `${prefix}: ${parseApiKey(key)?.prefix}`)).toEqual(
        [...prefixes].map((prefix) => `${prefix}: ${prefix}`),
      );
      expect(dashboardConfigSchema.shape.DASHBOARD_API_KEY.safeParse(key).success).toBe(true);
    }
    const secret = run(commands.DASHBOARD_API_SECRET!);
    expect(secret.length).toBeGreaterThanOrEqual(43);
    expect(dashboardConfigSchema.shape.DASHBOARD_API_SECRET.safeParse(secret).success).toBe(true);
    expect(keysConfigSchema.shape.SEED_API_SECRET.safeParse(secret).success).toBe(true);
    const k8sReadme = readRepoFile('k8s/README.md');
    for (const code of Object.values(commands)) expect(k8sReadme).toContain(`node -e '${code}'`);
  });
});

describe('the seed key checks catch mistakes', () => {
  const composeWith = (edit: (text: string) => string) => loadCompose(edit(readRepoFile('docker-compose.yml')));

  it('compose: keys seeded from another variable, or with other scopes', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own ${VAR:-} syntax, written into the file
    const other = composeWith((t) => t.replace(/SEED_API_KEY: \$\{DASHBOARD_API_KEY[^}]*\}/, 'SEED_API_KEY: ${SEED_API_KEY:-}'));
    expect(composeSeedProblems(other)).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the message quotes compose's ${VAR} expressions as written
      'keys SEED_API_KEY (${SEED_API_KEY:-}) and dashboard DASHBOARD_API_KEY (${DASHBOARD_API_KEY:?set DASHBOARD_API_KEY in .env (see .env.example)}) are not the same .env variable',
      'keys SEED_API_KEY is not always set',
    ]);
    expect(
      composeSeedProblems(composeWith((t) => t.replace('SEED_API_SCOPES: system:full-access', 'SEED_API_SCOPES: read:devices'))),
    ).toEqual(['keys SEED_API_SCOPES is "read:devices", without system:full-access']);
  });

  it('k8s: keys seeded from another Secret key, an optional one, or with other scopes', () => {
    const other = appliedManifestsWith('keys.yaml', (t) => t.replace('key: DASHBOARD_API_SECRET }', 'key: SESSION_SECRET }'));
    expect(k8sSeedProblems(other)).toEqual([
      'keys SEED_API_SECRET (Secret acs-secrets key SESSION_SECRET) and dashboard DASHBOARD_API_SECRET (Secret acs-secrets key DASHBOARD_API_SECRET) are not the same Secret key',
    ]);
    const optional = appliedManifestsWith('dashboard.yaml', (t) =>
      t.replace('key: DASHBOARD_API_KEY }', 'key: DASHBOARD_API_KEY, optional: true }'),
    );
    expect(k8sSeedProblems(optional)).toEqual([
      expect.stringMatching(
        /^keys SEED_API_KEY \(Secret acs-secrets key DASHBOARD_API_KEY\) and dashboard DASHBOARD_API_KEY \(.*not one required Secret key\)/,
      ),
    ]);
    const scopes = appliedManifestsWith('keys.yaml', (t) => t.replace('value: "system:full-access"', 'value: "read:devices"'));
    expect(k8sSeedProblems(scopes)).toEqual(['keys SEED_API_SCOPES is "read:devices", without system:full-access']);
  });
});
