import { describe, expect, it } from '@jest/globals';
import { readRepoFile } from './components.js';
import { appliedManifests, ofKind, resolvePort, secretExample, selects, type Labels } from './k8s-files.js';
import { workloads } from './k8s-workloads.js';

// The objects around the Deployments: Services, autoscalers, disruption budgets, the Ingress,
// ConfigMaps and the Secret example.

const manifests = appliedManifests();
const all = workloads(manifests).workloads;
const services = ofKind(manifests, 'Service');
const selectorOf = (spec: { selector?: Labels | { matchLabels?: Labels } } | undefined): Labels | undefined =>
  spec?.selector && 'matchLabels' in spec.selector ? (spec.selector.matchLabels as Labels) : (spec?.selector as Labels | undefined);
const deploymentsSelectedBy = (labels: Labels | undefined) => all.filter((w) => labels && Object.keys(labels).length > 0 && selects(labels, w.labels));

describe('k8s/ Services, autoscalers, disruption budgets, Ingress', () => {
  it('each Service selects one Deployment and targets its container ports', () => {
    for (const service of services) {
      const selected = deploymentsSelectedBy(selectorOf(service.spec));
      expect(`${service.metadata.name}: ${selected.map((w) => w.deployment.metadata.name).join(',')}`).toBe(`${service.metadata.name}: ${service.metadata.name}`);
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
      expect(target?.deployment.spec!.replicas).toBeUndefined();
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

  it('the Ingress sends everything to the gateway Service', () => {
    const backends = ofKind(manifests, 'Ingress').flatMap((ing) => (ing.spec?.rules ?? []).flatMap((rule) => rule.http?.paths ?? []).map((p) => p.backend.service));
    expect(backends.length).toBeGreaterThan(0);
    const gateway = services.find((s) => s.metadata.name === 'gateway')!;
    for (const backend of backends) {
      expect(backend.name).toBe('gateway');
      expect(gateway.spec!.ports!.some((p) => p.name === backend.port.name || p.port === backend.port.number)).toBe(true);
    }
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

  it('the Secret example holds placeholders only, each key used by some Deployment; secret.yaml is git-ignored', () => {
    const secret = secretExample();
    expect(secret.data).toBeUndefined();
    const referenced = new Set(all.flatMap((w) => (w.container.env ?? []).flatMap((e) => e.valueFrom?.secretKeyRef?.key ?? [])));
    for (const [key, value] of Object.entries(secret.stringData ?? {})) {
      expect(referenced.has(key) ? key : `${key} (unused)`).toBe(key);
      if (value !== '[]') expect(value).toMatch(/<[^>]+>/);
    }
    expect(readRepoFile('.gitignore').split('\n')).toContain('k8s/secret.yaml');
  });
});
