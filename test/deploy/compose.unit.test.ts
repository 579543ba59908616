import { describe, expect, it } from '@jest/globals';
import { ceilingViolations, type RateLimits } from '@acs/contracts';
import {
  COMPONENTS,
  appStopGraceSeconds,
  componentOfCommand,
  mainSchemaName,
  publicComponents,
  readRepoFile,
  standaloneEntries,
  type Component,
} from './components.js';
import {
  composeEnv,
  composeVariables,
  envExampleVariables,
  interpolate,
  loadCompose,
  networksOf,
  rawEnvironment,
  type ComposeFile,
  type ComposeService,
} from './compose-file.js';
import { SECRET_FIXTURES, envProblems, parsedConfig, sharedSettingProblems, targetOfUrlVariable } from './env-check.js';

const compose = loadCompose();
const variables = composeVariables();

/** The services that run our image, with the component their command starts. */
function ourServices(file: ComposeFile): { name: string; service: ComposeService; component: Component | string }[] {
  return Object.entries(file.services)
    .filter(([, service]) => service.build !== undefined || String(service.image ?? '').includes('ACS_IMAGE'))
    .map(([name, service]) => ({ name, service, component: componentOfCommand(service.command) }));
}

const ours = ourServices(compose);
const components = ours.map((s) => s.component).filter((c): c is Component => typeof c !== 'string');
const serviceOf = (component: Component) => ours.find((s) => s.component === component)!;

/** Problems of every container's environment (schema keys, required variables, values). */
function allEnvProblems(file: ComposeFile): string[] {
  return ourServices(file).flatMap(({ name, service, component }) =>
    typeof component === 'string' ? [`${name}: ${component}`] : envProblems(name, component, composeEnv(service, variables)),
  );
}

/** `"${DASHBOARD_PORT:-8086}:8086"` → 8086: the container side of a published port. */
const containerPort = (entry: unknown): number =>
  Number(
    interpolate(String(entry), (name) => SECRET_FIXTURES[name])
      .split(':')
      .at(-1)!
      .split('/')[0],
  );

/** Published services that are not public entries, and public entries not published on their PORT. */
function publishedProblems(file: ComposeFile): string[] {
  const problems: string[] = [];
  const published = Object.entries(file.services)
    .filter(([, s]) => (s.ports ?? []).length > 0)
    .map(([name]) => name);
  for (const name of published)
    if (!publicComponents().some((c) => c.name === name)) problems.push(`${name} is published but is not a public entry`);
  for (const component of publicComponents()) {
    const service = file.services[component.name];
    const port = service && parsedConfig(component, composeEnv(service, variables)).PORT;
    if (!service || !(service.ports ?? []).some((entry) => containerPort(entry) === port))
      problems.push(`${component.name} is not published on its port ${String(port)}`);
  }
  return problems;
}

/** The compose services a container connects to, from the URLs of its configuration. */
function connectionHosts(service: ComposeService, component: Component): string[] {
  const config = parsedConfig(component, composeEnv(service, variables));
  // PUBLIC_* URLs are addresses shown to users (the dashboard's curl line, identity's mailed links), not
  // connections; SMTP_URL is the operator's mail server, outside this file.
  const hosts = Object.entries(config)
    .filter(([variable]) => !variable.startsWith('PUBLIC_') && !variable.endsWith('_PUBLIC_URL') && variable !== 'SMTP_URL')
    .map(([, value]) => value)
    .filter((value): value is string => typeof value === 'string' && /^[a-z]+s?:\/\//.test(value))
    .map((value) => new URL(value).hostname);
  return [...new Set(hosts)];
}

/** Containers that connect to a service with which they share no network (the name would not resolve). */
function unreachableConnections(file: ComposeFile): string[] {
  const problems: string[] = [];
  for (const { name, service, component } of ourServices(file)) {
    if (typeof component === 'string') continue;
    const own = new Set(networksOf(service));
    for (const host of connectionHosts(service, component)) {
      const target = file.services[host];
      if (target && !networksOf(target).some((network) => own.has(network))) problems.push(`${name} → ${host}: no network in common`);
    }
  }
  return problems;
}

/** The services webhooks shares a network with: it posts to addresses users choose, so only what it must. */
const webhooksNeighbours = (file: ComposeFile): string[] => {
  const own = new Set(networksOf(file.services.webhooks!));
  return Object.entries(file.services)
    .filter(([name, service]) => name !== 'webhooks' && networksOf(service).some((network) => own.has(network)))
    .map(([name]) => name)
    .sort();
};

describe('docker-compose.yml', () => {
  it('runs every standalone process of the repository, each from an entry with a src/main.ts and a known schema', () => {
    expect(ours.flatMap(({ name, component }) => (typeof component === 'string' ? [`${name}: ${component}`] : []))).toEqual([]);
    expect(components.map((c) => c.dir).sort()).toEqual(standaloneEntries());
    for (const component of components) expect(mainSchemaName(component)).toBe(component.schemaName);
    for (const { name, component } of ours) expect(name).toBe((component as Component).name);
  });

  it('gives each container exactly the variables of its config schema, and all it needs', () => {
    expect(allEnvProblems(compose)).toEqual([]);
  });

  it('configures the shared settings alike (internal secret, Redis, bus, JWT issuer and audience)', () => {
    const configs = new Map(components.map((c) => [c.name, parsedConfig(c, composeEnv(serviceOf(c).service, variables))]));
    expect(sharedSettingProblems(configs)).toEqual([]);
  });

  it('points every service URL at the compose service of that name, on its port; the gateway reaches every service (not the public entries)', () => {
    const ports = new Map(components.map((c) => [c.name, parsedConfig(c, composeEnv(serviceOf(c).service, variables)).PORT]));
    for (const component of components) {
      const config = parsedConfig(component, composeEnv(serviceOf(component).service, variables));
      for (const [variable, value] of Object.entries(config)) {
        const target = targetOfUrlVariable(variable);
        if (!target || typeof value !== 'string' || !/^https?:/.test(value)) continue;
        const url = new URL(value);
        expect(`${variable}=${url.hostname}:${url.port}`).toBe(`${variable}=${target}:${String(ports.get(target))}`);
      }
    }
    const gateway = parsedConfig(COMPONENTS[0]!, composeEnv(compose.services.gateway!, variables));
    for (const component of components.filter((c) => !c.public)) expect(gateway[`${component.name.toUpperCase()}_URL`]).toBeDefined();
  });

  it('puts every container on a network with each service it connects to', () => {
    expect(unreachableConnections(compose)).toEqual([]);
  });

  it('keeps webhooks (egress to addresses users choose) on a network shared only with postgres, rabbitmq and the gateway that calls it', () => {
    expect(webhooksNeighbours(compose)).toEqual(['gateway', 'postgres', 'rabbitmq']);
    expect(networksOf(compose.services.webhooks!)).not.toContain('default');
  });

  it('checks health on /healthz or /readyz of the port the process listens on', () => {
    for (const component of components) {
      const { service } = serviceOf(component);
      const port = parsedConfig(component, composeEnv(service, variables)).PORT;
      expect(JSON.stringify(service.healthcheck?.test)).toMatch(new RegExp(`http://127\\.0\\.0\\.1:${String(port)}/(healthz|readyz)\\b`));
    }
  });

  it('starts a container after what it connects to is healthy', () => {
    for (const { name, service, component } of ours) {
      const dependsOn: Record<string, { condition?: string }> = Array.isArray(service.depends_on) ? {} : (service.depends_on ?? {});
      for (const host of connectionHosts(service, component as Component)) {
        expect(`${name} → ${host}: ${dependsOn[host]?.condition}`).toBe(`${name} → ${host}: service_healthy`);
        expect(compose.services[host]?.healthcheck).toBeDefined();
      }
    }
  });

  it('publishes only the public entries (gateway, dashboard), each on the port it listens on, and runs our containers read-only with a stop grace above the processes’ own', () => {
    expect(publishedProblems(compose)).toEqual([]);
    expect(
      publicComponents()
        .map((c) => c.name)
        .sort(),
    ).toEqual(['dashboard', 'gateway']);
    for (const { service } of ours) {
      expect(service.read_only).toBe(true);
      expect(Number.parseInt(service.stop_grace_period ?? '10', 10)).toBeGreaterThan(appStopGraceSeconds());
    }
  });

  it("shares a rate limit among the gateway containers it runs, and keeps the live default within the users' ceiling", () => {
    const byName = (name: string) => components.find((c) => c.name === name)!;
    const config = (name: string) => parsedConfig(byName(name), composeEnv(serviceOf(byName(name)).service, variables));
    const gateway = serviceOf(byName('gateway')).service as ComposeService & { deploy?: { replicas?: number } };
    expect(config('gateway').GATEWAY_REPLICAS).toBe(gateway.deploy?.replicas ?? 1);
    const live = config('gateway').RATE_LIMITS_LIVE as RateLimits | null;
    const ceiling = config('keys').RATE_LIMIT_CEILING as RateLimits | null;
    expect(live).not.toBeNull();
    expect(ceiling).not.toBeNull();
    expect(ceilingViolations(live!, ceiling!)).toEqual([]);
    // .env.example shows the same values compose uses when .env leaves them out.
    const example = readRepoFile('.env.example');
    for (const name of ['RATE_LIMITS_LIVE', 'RATE_LIMITS_TEST', 'RATE_LIMIT_CEILING']) {
      const line = new RegExp(`^${name}=(.*)$`, 'm').exec(example)?.[1];
      const raw = [...Object.values(compose.services)]
        .flatMap((service) => rawEnvironment(service))
        .find(([variable]) => variable === name)?.[1];
      expect(raw && interpolate(raw, () => undefined)).toBe(line);
    }
  });

  it('takes every secret from the env file: .env.example lists each variable, .env is git-ignored', () => {
    const listed = envExampleVariables();
    expect([...variables.keys()].filter((name) => !listed.has(name))).toEqual([]);
    // Placeholders only: nothing usable is committed.
    expect(readRepoFile('.env.example')).not.toMatch(/^\w*(SECRET|PASSWORD|KEY)\w*=\S/m);
    expect(readRepoFile('.gitignore').split('\n')).toContain('.env');
  });

  it('gives the container smoke a value for every variable that defaults to empty (podman-compose passes an empty-default reference on as it is)', () => {
    const override = loadCompose(readRepoFile('deploy/podman/compose.override.yml'));
    const missing: string[] = [];
    for (const [name, service] of Object.entries(compose.services)) {
      const overridden = new Set(rawEnvironment(override.services[name] ?? {}).map(([variable]) => variable));
      for (const [variable, raw] of rawEnvironment(service))
        if (/\$\{[A-Za-z_][A-Za-z0-9_]*:-\}/.test(raw) && !overridden.has(variable)) missing.push(`${name}.${variable}`);
    }
    expect(missing).toEqual([]);
  });
});

describe('the compose checks catch mistakes', () => {
  const mutated = (edit: (text: string) => string): ComposeFile => loadCompose(edit(readRepoFile('docker-compose.yml')));

  it('a misspelt variable', () => {
    const problems = allEnvProblems(mutated((text) => text.replace('KEYS_URL: http://keys:8081', 'KEY_URL: http://keys:8081')));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/gateway: KEY_URL is not a variable/),
        expect.stringMatching(/gateway: KEYS_URL is required/),
      ]),
    );
  });

  it('a missing required variable and a bad value', () => {
    const problems = allEnvProblems(
      mutated((text) => text.replace('      CATALOG_URL: http://catalog:8082\n', '').replace('PORT: "8082"', 'PORT: "eighty"')),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/device: CATALOG_URL is required/),
        expect.stringMatching(/catalog: PORT: expected a TCP port/),
      ]),
    );
  });

  it('a service published that is not a public entry, and a public entry not published', () => {
    const edited = mutated((text) =>
      text
        // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's own ${VAR:-default} syntax, matched as text
        .replace('      - "${DASHBOARD_PORT:-8086}:8086"\n', '      - "8086:8081"\n')
        .replace('  keys:\n    <<: *app\n', '  keys:\n    <<: *app\n    ports: ["8081:8081"]\n'),
    );
    expect(publishedProblems(edited)).toEqual([
      'keys is published but is not a public entry',
      'dashboard is not published on its port 8086',
    ]);
  });

  it('webhooks back on the default network, and a store taken off its network', () => {
    const widened = mutated((text) => text.replace('    networks: [webhooks]\n', ''));
    expect(webhooksNeighbours(widened)).toEqual(expect.arrayContaining(['keys', 'redis', 'identity', 'dashboard']));
    const cut = mutated((text) =>
      text.replace("    # Also on webhooks' own network (below): its database is here.\n    networks: [default, webhooks]\n", ''),
    );
    expect(unreachableConnections(cut)).toEqual(['webhooks → postgres: no network in common']);
  });

  it('a service entry that does not exist', () => {
    const problems = allEnvProblems(mutated((text) => text.replace('services/device/dist/main.js', 'services/devices/dist/main.js')));
    expect(problems).toEqual([expect.stringMatching(/device: .*services\/devices\/src\/main\.ts does not exist/)]);
  });
});
