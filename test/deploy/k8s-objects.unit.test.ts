import { describe, expect, it } from '@jest/globals';
import { publicComponents, readRepoFile } from './components.js';
import { parsedConfig } from './env-check.js';
import {
  appliedManifests,
  appliedManifestsWith,
  ofKind,
  resolvePort,
  secretExample,
  selects,
  type Labels,
  type Manifest,
} from './k8s-files.js';
import { workloads } from './k8s-workloads.js';

// The objects around the Deployments: Services, autoscalers, disruption budgets, the Ingress,
// ConfigMaps and the Secret example.

const manifests = appliedManifests();
const all = workloads(manifests).workloads;
const services = ofKind(manifests, 'Service');
const selectorOf = (spec: { selector?: Labels | { matchLabels?: Labels } } | undefined): Labels | undefined =>
  spec?.selector && 'matchLabels' in spec.selector ? (spec.selector.matchLabels as Labels) : (spec?.selector as Labels | undefined);
const deploymentsSelectedBy = (labels: Labels | undefined) =>
  all.filter((w) => labels && Object.keys(labels).length > 0 && selects(labels, w.labels));

/**
 * What is wrong with the Ingresses: a backend that is not a public entry's Service port, a public
 * entry no Ingress reaches, a host without TLS, a path other than `/` (neither process knows a base
 * path), or a rewritten Host header (the dashboard compares a form's Origin with Host).
 */
function ingressProblems(manifests: Manifest[]): string[] {
  const problems: string[] = [];
  const reached = new Set<string>();
  for (const ingress of ofKind(manifests, 'Ingress')) {
    const where = `Ingress ${ingress.metadata.name}`;
    if ('nginx.ingress.kubernetes.io/upstream-vhost' in (ingress.metadata.annotations ?? {}))
      problems.push(`${where}: upstream-vhost replaces the browser's Host header`);
    const tlsHosts = (ingress.spec?.tls ?? []).flatMap((tls) => tls.hosts ?? []);
    for (const rule of ingress.spec?.rules ?? []) {
      if (!rule.host || !tlsHosts.includes(rule.host)) problems.push(`${where}: host ${String(rule.host)} is not served over TLS`);
      for (const path of rule.http?.paths ?? []) {
        const backend = path.backend.service;
        if (path.path !== '/' || path.pathType !== 'Prefix')
          problems.push(`${where}: ${backend.name} is routed at ${String(path.path)}, not at /`);
        if (!publicComponents().some((c) => c.name === backend.name)) problems.push(`${where}: ${backend.name} is not a public entry`);
        const service = ofKind(manifests, 'Service').find((s) => s.metadata.name === backend.name);
        if (
          !service?.spec?.ports?.some(
            (p) => (backend.port.name !== undefined && p.name === backend.port.name) || p.port === backend.port.number,
          )
        )
          problems.push(`${where}: Service ${backend.name} has no port ${JSON.stringify(backend.port)}`);
        reached.add(backend.name);
      }
    }
  }
  for (const component of publicComponents()) if (!reached.has(component.name)) problems.push(`${component.name} is reached by no Ingress`);
  return problems;
}

describe('k8s/ Services, autoscalers, disruption budgets, Ingress', () => {
  it('each Service selects one Deployment and targets its container ports', () => {
    for (const service of services) {
      const selected = deploymentsSelectedBy(selectorOf(service.spec));
      expect(`${service.metadata.name}: ${selected.map((w) => w.deployment.metadata.name).join(',')}`).toBe(
        `${service.metadata.name}: ${service.metadata.name}`,
      );
      for (const port of service.spec?.ports ?? []) expect(resolvePort(port.targetPort ?? port.port, selected[0]!.pod.ports)).toBeDefined();
    }
  });

  it('gateway and catalog scale on CPU (autoscaling/v2) and leave the replica count to the autoscaler', () => {
    const hpas = ofKind(manifests, 'HorizontalPodAutoscaler');
    for (const hpa of hpas) {
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      const ref = hpa.spec!.scaleTargetRef!;
      expect(ref.kind).toBe('Deployment');
      const target = all.find((w) => w.deployment.metadata.name === ref.name);
      expect(target ? ref.name : `${ref.name} (no such Deployment)`).toBe(ref.name);
      expect(target?.deployment.spec?.replicas).toBeUndefined();
      expect(hpa.spec!.metrics?.some((m) => m.type === 'Resource' && m.resource?.name === 'cpu')).toBe(true);
      expect(hpa.spec!.minReplicas).toBeGreaterThanOrEqual(2);
    }
    expect(hpas.map((h) => h.spec!.scaleTargetRef!.name).sort()).toEqual(['catalog', 'gateway']);
  });

  it('disruption budgets select existing Deployments, gateway and catalog among them', () => {
    const pdbs = ofKind(manifests, 'PodDisruptionBudget');
    for (const pdb of pdbs) {
      expect(pdb.apiVersion).toBe('policy/v1');
      expect(deploymentsSelectedBy(selectorOf(pdb.spec))).toHaveLength(1);
    }
    const covered = pdbs.flatMap((pdb) => deploymentsSelectedBy(selectorOf(pdb.spec)).map((w) => w.component.name));
    expect(covered).toEqual(expect.arrayContaining(['gateway', 'catalog']));
  });

  it('the Ingresses send outside traffic to the public entries only (gateway, dashboard), each on a host of its own, over TLS, Host passed through', () => {
    expect(ingressProblems(manifests)).toEqual([]);
    // TLS ends at the Ingress, so the dashboard's cookies are Secure (and HSTS is on).
    for (const w of all.filter((x) => 'COOKIE_SECURE' in x.component.schema.shape))
      expect(parsedConfig(w.component, w.env).COOKIE_SECURE).toBe(true);
  });
});

describe('the Ingress checks catch mistakes', () => {
  // Edits the dashboard's Ingress only: the text after its `  name: dashboard` line.
  const dashboardIngress = (edit: (text: string) => string) =>
    appliedManifestsWith('ingress.yaml', (t) =>
      t.replace(/(\n {2}name: dashboard\n)([\s\S]*)$/, (_all, head: string, rest: string) => head + edit(rest)),
    );

  it('a service behind the Ingress, and the dashboard reached by none', () => {
    expect(ingressProblems(dashboardIngress((t) => t.replace('name: dashboard', 'name: keys')))).toEqual([
      'Ingress dashboard: keys is not a public entry',
      'dashboard is reached by no Ingress',
    ]);
  });

  it('a rewritten Host header, a host without TLS, and a path prefix', () => {
    const edited = dashboardIngress((t) =>
      `  annotations:\n    nginx.ingress.kubernetes.io/upstream-vhost: dashboard\n${t}`
        .replace('hosts: [dashboard.example.com]', 'hosts: [other.example.com]')
        .replace('- path: /\n', '- path: /dashboard\n'),
    );
    expect(ingressProblems(edited)).toEqual([
      "Ingress dashboard: upstream-vhost replaces the browser's Host header",
      'Ingress dashboard: host dashboard.example.com is not served over TLS',
      'Ingress dashboard: dashboard is routed at /dashboard, not at /',
    ]);
  });
});

describe('k8s/ ConfigMaps and the Secret example', () => {
  // Secrets, and URLs that carry credentials, belong in the Secret only.
  const SECRET_NAMES = /SECRET|PASSWORD|TOKEN|SIGNING_KEY|VERIFICATION_KEYS|API_KEY|DATABASE_URL|REDIS_URL|AMQP_URL/;

  it('ConfigMaps hold no secret: no secret-looking name, no credentials in a URL; each is used', () => {
    for (const configMap of ofKind(manifests, 'ConfigMap')) {
      for (const [key, value] of Object.entries(configMap.data ?? {})) {
        expect(`${configMap.metadata.name}.${key}`).not.toMatch(SECRET_NAMES);
        expect(value).not.toMatch(/:\/\/[^/@\s]*:[^/@\s]*@/);
      }
      expect(all.some((w) => w.container.envFrom?.some((e) => e.configMapRef?.name === configMap.metadata.name))).toBe(true);
    }
    expect(ofKind(manifests, 'Secret')).toEqual([]);
  });

  it('the Secret example holds placeholders only, each key used by some Deployment or Job; secret.yaml is git-ignored', () => {
    const secret = secretExample();
    expect(secret.data).toBeUndefined();
    const containers = [
      ...all.map((w) => w.container),
      ...ofKind(manifests, 'Job').flatMap((job) => job.spec?.template?.spec.containers ?? []),
    ];
    const referenced = new Set(containers.flatMap((c) => (c.env ?? []).flatMap((e) => e.valueFrom?.secretKeyRef?.key ?? [])));
    for (const [key, value] of Object.entries(secret.stringData ?? {})) {
      expect(referenced.has(key) ? key : `${key} (unused)`).toBe(key);
      if (value !== '[]') expect(value).toMatch(/<[^>]+>/);
    }
    expect(readRepoFile('.gitignore').split('\n')).toContain('k8s/secret.yaml');
  });
});
