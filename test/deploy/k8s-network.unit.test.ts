import { describe, expect, it } from '@jest/globals';
import { servesMetrics } from './components.js';
import { parsedConfig, targetOfUrlVariable } from './env-check.js';
import { appliedManifests, appliedManifestsWith, ofKind, type Manifest } from './k8s-files.js';
import { workloads, type Workload } from './k8s-workloads.js';
import { admitsFromPod, isIsolated, outsidePorts } from './network-policy.js';

/** Who calls whom, read from the processes' own configuration (KEYS_URL, CATALOG_URL, ...). */
function calls(all: Workload[]): { from: Workload; to: Workload; port: number }[] {
  return all.flatMap((from) =>
    Object.entries(parsedConfig(from.component, from.env)).flatMap(([variable, value]) => {
      const to = all.find((w) => w.component.name === targetOfUrlVariable(variable));
      return to && typeof value === 'string' && /^https?:/.test(value)
        ? [{ from, to, port: parsedConfig(to.component, to.env).PORT as number }]
        : [];
    }),
  );
}

/** Every in-namespace path that is needed but denied, or allowed but not needed. */
function pathProblems(manifests: Manifest[]): string[] {
  const all = workloads(manifests).workloads;
  const policies = ofKind(manifests, 'NetworkPolicy');
  const needed = calls(all);
  const problems: string[] = [];
  for (const from of all) {
    for (const to of all) {
      if (from === to) continue;
      const port = parsedConfig(to.component, to.env).PORT as number;
      // The public port is open to everyone by design (checked below), so in-namespace pods too.
      if (outsidePorts(policies, to.pod).some((o) => o.from === 'anyone' && (o.port === port || o.port === 'all'))) continue;
      const need = needed.some((c) => c.from === from && c.to === to);
      const allowed = admitsFromPod(policies, from.labels, to.pod, port);
      if (need !== allowed)
        problems.push(
          `${from.component.name} → ${to.component.name}:${port} is ${allowed ? 'allowed but not needed' : 'needed but denied'}`,
        );
    }
  }
  return problems;
}

/**
 * Ports open to traffic from outside the namespace beyond the public entries' ports (gateway,
 * dashboard) and the metrics port of each pod that serves metrics.
 */
function outsideProblems(manifests: Manifest[]): string[] {
  const policies = ofKind(manifests, 'NetworkPolicy');
  const problems: string[] = [];
  for (const w of workloads(manifests).workloads) {
    const listen = parsedConfig(w.component, w.env).PORT as number;
    const metrics = servesMetrics(w.component)
      ? Number(w.deployment.spec!.template!.metadata.annotations?.['prometheus.io/port'])
      : undefined;
    const outside = outsidePorts(policies, w.pod);
    const publicPort = w.component.public ? listen : undefined;
    for (const { port, from } of outside) {
      // The public port: from the Ingress controller's namespace only (k8s-proxies.test.ts names it).
      const fine = (port === publicPort || port === metrics) && from === 'namespaces';
      if (!fine) problems.push(`${w.component.name}:${port} is open to ${from} outside the namespace`);
    }
    if (metrics !== undefined && !outside.some((o) => o.port === metrics))
      problems.push(`${w.component.name}: metrics port ${metrics} cannot be scraped from another namespace`);
    if (publicPort !== undefined && !outside.some((o) => (o.port === publicPort || o.port === 'all') && o.from === 'namespaces'))
      problems.push(`${w.component.name}:${publicPort} is not open to outside traffic`);
  }
  return problems;
}

const manifests = appliedManifests();
const all = workloads(manifests).workloads;
const policies = ofKind(manifests, 'NetworkPolicy');

describe('k8s/ NetworkPolicies', () => {
  it('isolate every pod: a default deny for incoming traffic', () => {
    expect(
      policies.some(
        (p) =>
          Object.keys(p.spec?.podSelector?.matchLabels ?? {}).length === 0 &&
          p.spec?.policyTypes?.includes('Ingress') &&
          !p.spec?.ingress?.length,
      ),
    ).toBe(true);
    for (const w of all) expect(isIsolated(policies, w.pod)).toBe(true);
  });

  it('inside the namespace, admit exactly the calls the configuration makes (gateway → services, device → catalog, dashboard → gateway)', () => {
    expect(calls(all).map((c) => `${c.from.component.name}→${c.to.component.name}`)).toEqual(
      expect.arrayContaining(['gateway→keys', 'device→catalog', 'dashboard→gateway']),
    );
    // Nobody inside calls the dashboard: it is reached from outside only.
    expect(calls(all).filter((c) => c.to.component.name === 'dashboard')).toEqual([]);
    expect(pathProblems(manifests)).toEqual([]);
  });

  it('from outside the namespace: other namespaces to the public entries’ ports (gateway, dashboard) and to metrics ports only, never anyone', () => {
    expect(outsideProblems(manifests)).toEqual([]);
  });
});

describe('the NetworkPolicy checks catch mistakes', () => {
  it('a caller left out, and a pod let in that nobody calls', () => {
    const noDevice = appliedManifestsWith('network-policy.yaml', (t) =>
      t.replace('        - podSelector: { matchLabels: { app.kubernetes.io/name: device } }\n', ''),
    );
    expect(pathProblems(noDevice)).toEqual(['device → catalog:8082 is needed but denied']);
    const wide = appliedManifestsWith('network-policy.yaml', (t) =>
      t.replace(/(name: billing\n[\s\S]*?- from:\n\s*- podSelector: )\{[^\n]*\}/, '$1{}'),
    );
    expect(pathProblems(wide)).toEqual(expect.arrayContaining(['keys → billing:8085 is allowed but not needed']));
  });

  it('a service opened to outside traffic', () => {
    const open = appliedManifestsWith('network-policy.yaml', (t) => t.replace(/(name: billing\n[\s\S]*?)- from:\n.*\n\s*/, '$1- '));
    expect(outsideProblems(open)).toEqual(['billing:8085 is open to anyone outside the namespace']);
  });

  it('the dashboard open on every port, or closed to outside traffic', () => {
    const allPorts = appliedManifestsWith('network-policy.yaml', (t) =>
      t.replace(/(name: dashboard\n[\s\S]*?)- from:\n.*\n\s*ports: \[\{ port: 8086 \}\]/, '$1- {}'),
    );
    expect(outsideProblems(allPorts)).toEqual([
      'dashboard:all is open to anyone outside the namespace',
      // Open to anyone is not open to the controller's namespace alone.
      'dashboard:8086 is not open to outside traffic',
    ]);
    const closed = appliedManifestsWith('network-policy.yaml', (t) =>
      t.replace('      ports: [{ port: 8086 }]', '      ports: [{ port: 8087 }]'),
    );
    expect(outsideProblems(closed)).toEqual(['dashboard:8086 is not open to outside traffic']);
  });
});
