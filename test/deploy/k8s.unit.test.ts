import { describe, expect, it } from '@jest/globals';
import { ceilingViolations, type RateLimits } from '@acs/contracts';
import { appStopGraceSeconds, mainSchemaName, servesMetrics, standaloneEntries } from './components.js';
import { parsedConfig, sharedSettingProblems, targetOfUrlVariable } from './env-check.js';
import { appliedManifests, appliedManifestsWith, k8sFiles, loadKustomization, ofKind, resolvePort } from './k8s-files.js';
import { workloads } from './k8s-workloads.js';

const manifests = appliedManifests();
const { workloads: all, problems } = workloads(manifests);
const byName = (name: string) => all.find((w) => w.component.name === name)!;
const services = ofKind(manifests, 'Service');
const config = (name: string) => parsedConfig(byName(name).component, byName(name).env);
const listenPort = (name: string) => config(name).PORT as number;

/** `250m` → 0.25, `1` → 1; `128Mi` → bytes. */
const cpu = (q: string) => (q.endsWith('m') ? Number(q.slice(0, -1)) / 1000 : Number(q));
const bytes = (q: string) => Number.parseFloat(q) * ({ Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 }[q.replace(/^[\d.]+/, '')] ?? 1);

describe('k8s/ kustomization', () => {
  it('applies every manifest of k8s/ except the Secret example, into the namespace it creates', () => {
    const kustomization = loadKustomization();
    expect(kustomization.resources).not.toContain('secret.example.yaml');
    expect([...kustomization.resources].sort()).toEqual(
      k8sFiles().filter((f) => f !== 'kustomization.yaml' && f !== 'secret.example.yaml'),
    );
    expect(ofKind(manifests, 'Namespace').map((n) => n.metadata.name)).toEqual([kustomization.namespace]);
    expect(kustomization.images?.map((i) => i.name)).toEqual(['acs']);
  });
});

describe('k8s/ Deployments', () => {
  it('run every standalone process once, from entries with a src/main.ts and a known schema', () => {
    // A Deployment missing here is one whose entry is unknown: the next test lists why.
    expect(all.map((w) => w.deployment.metadata.name).sort()).toEqual(
      ofKind(manifests, 'Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    );
    expect(all.map((w) => w.component.dir).sort()).toEqual(standaloneEntries());
    for (const w of all) {
      expect(w.deployment.metadata.name).toBe(w.component.name);
      expect(mainSchemaName(w.component)).toBe(w.component.schemaName);
      expect(w.container.image).toBe('acs');
    }
  });

  it('give each container exactly the variables of its config schema, and all it needs, from the ConfigMaps and the Secret', () => {
    expect(problems).toEqual([]);
  });

  it("share a rate limit among as many gateway pods as the autoscaler may run, and keep the live default within the users' ceiling", () => {
    const hpa = ofKind(manifests, 'HorizontalPodAutoscaler').find((h) => h.metadata?.name === 'gateway') as
      | { spec: { maxReplicas: number } }
      | undefined;
    expect(hpa).toBeDefined();
    // Outage share floor(limit / GATEWAY_REPLICAS) per pod: at maxReplicas, all pods together stay within the limit.
    expect(config('gateway').GATEWAY_REPLICAS).toBe(hpa!.spec.maxReplicas);
    const live = config('gateway').RATE_LIMITS_LIVE as RateLimits | null;
    const ceiling = config('keys').RATE_LIMIT_CEILING as RateLimits | null;
    expect(live).not.toBeNull();
    expect(config('gateway').RATE_LIMITS_TEST).not.toBeNull();
    expect(ceiling).not.toBeNull();
    // A user can always give a key the deployment's own live default.
    expect(ceilingViolations(live!, ceiling!)).toEqual([]);
  });

  it('configure the shared settings alike (internal secret, Redis, bus, JWT issuer and audience)', () => {
    expect(sharedSettingProblems(new Map(all.map((w) => [w.component.name, parsedConfig(w.component, w.env)])))).toEqual([]);
  });

  it('point every service URL at the Service of that name, whose port reaches the process; the gateway reaches every service (not the public entries)', () => {
    for (const w of all) {
      for (const [variable, value] of Object.entries(parsedConfig(w.component, w.env))) {
        const target = targetOfUrlVariable(variable);
        if (!target || typeof value !== 'string' || !/^https?:/.test(value)) continue;
        const url = new URL(value);
        const service = services.find((s) => s.metadata.name === url.hostname);
        const port = service?.spec?.ports?.find((p) => p.port === Number(url.port));
        const targetPort = port?.targetPort === undefined ? port?.port : resolvePort(port.targetPort, byName(target).container.ports ?? []);
        expect(`${w.component.name} ${variable} → ${url.hostname}:${url.port} → ${targetPort}`).toBe(
          `${w.component.name} ${variable} → ${target}:${url.port} → ${listenPort(target)}`,
        );
      }
    }
    const gateway = config('gateway');
    for (const w of all.filter((x) => !x.component.public)) expect(gateway[`${w.component.name.toUpperCase()}_URL`]).toBeDefined();
  });

  it('probe /healthz (startup, liveness) and /readyz (readiness; the public entries: /healthz, see gateway.yaml) on the port the process listens on', () => {
    for (const w of all) {
      const { startupProbe, livenessProbe, readinessProbe } = w.container;
      const ports = w.container.ports ?? [];
      for (const probe of [startupProbe, livenessProbe, readinessProbe]) {
        expect(probe?.httpGet).toBeDefined();
        expect(resolvePort(probe!.httpGet!.port, ports)).toBe(listenPort(w.component.name));
      }
      expect(startupProbe!.httpGet!.path).toBe('/healthz');
      expect(livenessProbe!.httpGet!.path).toBe('/healthz');
      // The gateway's /readyz asks every upstream's, the dashboard's asks the gateway's: as readiness
      // they would take every pod of the entry out of service when one service is unready.
      expect(`${w.component.name}: ${readinessProbe!.httpGet!.path}`).toBe(
        `${w.component.name}: ${w.component.public ? '/healthz' : '/readyz'}`,
      );
    }
  });

  it('run as non-root, read-only, unprivileged, without a service account token', () => {
    for (const w of all) {
      const pod = w.deployment.spec!.template!.spec;
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(pod.securityContext?.runAsUser).not.toBe(0);
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(w.container.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
    }
  });

  it('request and limit CPU and memory (requests within limits)', () => {
    for (const w of all) {
      const { requests = {}, limits = {} } = w.container.resources ?? {};
      for (const q of [requests.cpu, limits.cpu, requests.memory, limits.memory]) expect(q).toBeDefined();
      expect(cpu(requests.cpu!)).toBeLessThanOrEqual(cpu(limits.cpu!));
      expect(bytes(requests.memory!)).toBeLessThanOrEqual(bytes(limits.memory!));
    }
  });

  it('give the graceful stop time: grace period ≥ preStop pause + the processes’ own stop grace', () => {
    for (const w of all) {
      const preStop = w.container.lifecycle?.preStop?.exec?.command ?? [];
      const pause = preStop[0] === 'sleep' ? Number(preStop[1]) : 0;
      expect(w.deployment.spec!.template!.spec.terminationGracePeriodSeconds).toBeGreaterThan(pause + appStopGraceSeconds());
    }
  });

  it('are scraped by Prometheus on /metrics: services on their own port, the gateway on its metrics port only; a process without metrics is not', () => {
    // The detection works: these have metrics.
    expect(all.filter((w) => servesMetrics(w.component)).map((w) => w.component.name)).toEqual(
      expect.arrayContaining(['gateway', 'keys', 'catalog']),
    );
    for (const w of all) {
      const annotations = w.deployment.spec!.template!.metadata.annotations ?? {};
      if (!servesMetrics(w.component)) {
        // The dashboard (no @acs/metrics in its sources yet): a scrape would find nothing.
        expect(
          `${w.component.name}: ${Object.keys(annotations)
            .filter((a) => a.startsWith('prometheus.io/'))
            .join(',')}`,
        ).toBe(`${w.component.name}: `);
        continue;
      }
      expect(annotations['prometheus.io/scrape']).toBe('true');
      expect(annotations['prometheus.io/path']).toBe('/metrics');
      const port = Number(annotations['prometheus.io/port']);
      expect(w.pod.ports.map((p) => p.containerPort)).toContain(port);
      if (w.component.name !== 'gateway') expect(port).toBe(listenPort(w.component.name));
      else {
        expect(port).not.toBe(listenPort('gateway'));
        // METRICS_PORT (default 9464; `off` would leave nothing to scrape).
        const metricsPort = config('gateway').METRICS_PORT;
        expect(port).toBe(metricsPort === undefined ? 9464 : metricsPort);
      }
    }
  });
});

describe('the k8s checks catch mistakes', () => {
  const problemsWith = (file: string, edit: (text: string) => string) => workloads(appliedManifestsWith(file, edit)).problems;

  it('a misspelt ConfigMap variable', () => {
    expect(problemsWith('configmap.yaml', (t) => t.replace('KEYS_URL: http://keys:8081', 'KEYS_URI: http://keys:8081'))).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/gateway: KEYS_URI is not a variable/),
        expect.stringMatching(/gateway: KEYS_URL is required/),
      ]),
    );
  });

  it('a Secret key the example does not have, and an optional signing key', () => {
    expect(problemsWith('identity.yaml', (t) => t.replace('key: IDENTITY_DATABASE_URL', 'key: IDENTITY_DB_URL'))).toEqual(
      expect.arrayContaining([expect.stringMatching(/secret\.example\.yaml has no key IDENTITY_DB_URL/)]),
    );
    expect(problemsWith('identity.yaml', (t) => t.replace('key: JWT_SIGNING_KEY }', 'key: JWT_SIGNING_KEY, optional: true }'))).toEqual([
      expect.stringMatching(/identity: JWT_SIGNING_KEY is required but not always set/),
    ]);
  });
});
