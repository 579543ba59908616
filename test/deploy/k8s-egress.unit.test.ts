import { describe, expect, it } from '@jest/globals';
import { parsedConfig } from './env-check.js';
import { appliedManifests, appliedManifestsWith, ofKind, secretExample, type Manifest } from './k8s-files.js';
import { workloads } from './k8s-workloads.js';
import { egressAdmits, egressPolicies, type Destination } from './network-egress.js';

// Issue 30: the webhooks service connects to URLs users choose, so beside its own address check its pods
// may reach only DNS, its database and broker, and public addresses: never the platform's pods, Redis,
// the cloud metadata service or any other private address (k8s/network-policy.yaml, webhooks-egress).

const WEBHOOKS = { 'app.kubernetes.io/name': 'webhooks', 'app.kubernetes.io/part-of': 'acs' };
const DNS: Destination = { address: '10.96.0.10', pod: { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } } };
/** Public receivers, on the ports a URL may name. */
const PUBLIC: [string, number][] = [
  ['93.184.215.14', 443],
  ['8.8.8.8', 8443],
  ['203.0.114.7', 80],
  ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', 443],
];
/** Private and special addresses a user's URL could aim at, on a receiver's ports. */
const PRIVATE: [string, number][] = [
  ['10.0.0.1', 443],
  ['172.16.5.4', 80],
  ['192.168.1.1', 8080],
  ['169.254.169.254', 80],
  ['100.64.0.1', 443],
  ['127.0.0.1', 8081],
  ['fd00:ec2::254', 80],
  ['fe80::1', 443],
];

/** The port of a Secret example URL (its host is a placeholder): the webhooks pod's database and broker. */
function secretPort(key: string): number {
  const url = secretExample().stringData?.[key] ?? '';
  const port = /@[^/]*:(\d+)(?:[/?]|$)/.exec(url)?.[1];
  if (!port) throw new Error(`k8s/secret.example.yaml: ${key} names no port`);
  return Number(port);
}

/** What the webhooks pod may reach that it should not, and what it cannot reach that it needs. */
function egressProblems(manifests: Manifest[]): string[] {
  const policies = ofKind(manifests, 'NetworkPolicy');
  const problems: string[] = [];
  if (egressPolicies(policies, WEBHOOKS).length === 0) return ['no Egress policy selects the webhooks pods'];
  const admits = (to: Destination, port: number, protocol?: string) => egressAdmits(policies, WEBHOOKS, to, port, protocol);
  for (const protocol of ['UDP', 'TCP']) if (!admits(DNS, 53, protocol)) problems.push(`DNS (53/${protocol}) is denied`);
  for (const [address, port] of PUBLIC) if (!admits({ address }, port)) problems.push(`public ${address}:${port} is denied`);
  for (const key of ['WEBHOOKS_DATABASE_URL', 'WEBHOOKS_AMQP_URL']) {
    const port = secretPort(key);
    for (const address of ['10.20.0.5', '172.20.0.5', '192.168.7.5'])
      if (!admits({ address }, port)) problems.push(`${key}'s port ${port} at ${address} is denied`);
  }
  for (const [address, port] of PRIVATE) if (admits({ address }, port)) problems.push(`private ${address}:${port} is allowed`);
  for (const redisPort of [6379, 6380]) if (admits({ address: '10.0.3.4' }, redisPort)) problems.push(`Redis :${redisPort} is allowed`);
  for (const w of workloads(manifests).workloads) {
    const pod: Destination = { address: '10.244.1.7', pod: { namespace: 'acs', labels: w.labels } };
    const port = parsedConfig(w.component, w.env).PORT as number;
    for (const p of [port, ...w.pod.ports.map((c) => c.containerPort)])
      if (w.component.name !== 'webhooks' && admits(pod, p)) problems.push(`${w.component.name}:${p} is allowed`);
  }
  return problems;
}

describe('k8s/ the webhooks pods’ outgoing traffic', () => {
  it('reaches DNS, its database and broker, and public addresses on any port; no platform pod, no other private address', () => {
    expect(egressProblems(appliedManifests())).toEqual([]);
  });

  it('is the only egress restriction: the other pods reach their managed servers at addresses these files cannot know', () => {
    const restricted = workloads(appliedManifests())
      .workloads.filter((w) => egressPolicies(ofKind(appliedManifests(), 'NetworkPolicy'), w.labels).length > 0)
      .map((w) => w.component.name);
    expect(restricted).toEqual(['webhooks']);
  });
});

describe('the egress checks catch mistakes', () => {
  const withPolicy = (edit: (text: string) => string) => appliedManifestsWith('network-policy.yaml', edit);

  it('the private ranges not excepted, DNS left out, the broker on another port', () => {
    const noExcept = withPolicy((t) => t.replace(/(cidr: 0\.0\.0\.0\/0\n)\s+except:\n(\s+- [\d./]+\n)+/, '$1'));
    expect(egressProblems(noExcept)).toEqual(
      expect.arrayContaining(['private 10.0.0.1:443 is allowed', 'private 169.254.169.254:80 is allowed', 'keys:8081 is allowed']),
    );
    const noDns = withPolicy((t) => t.replace(/ports: \[\{ port: 53, protocol: UDP \}, /, 'ports: ['));
    expect(egressProblems(noDns)).toEqual(['DNS (53/UDP) is denied']);
    const amqp = withPolicy((t) => t.replace('{ port: 5671, protocol: TCP }', '{ port: 5672, protocol: TCP }'));
    expect(egressProblems(amqp)).toEqual([
      "WEBHOOKS_AMQP_URL's port 5671 at 10.20.0.5 is denied",
      "WEBHOOKS_AMQP_URL's port 5671 at 172.20.0.5 is denied",
      "WEBHOOKS_AMQP_URL's port 5671 at 192.168.7.5 is denied",
    ]);
  });

  it('no egress policy at all', () => {
    const none = withPolicy((t) => t.replace('policyTypes: [Egress]', 'policyTypes: [Ingress]'));
    expect(egressProblems(none)).toEqual(['no Egress policy selects the webhooks pods']);
  });
});
