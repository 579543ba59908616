import { describe, expect, it } from '@jest/globals';
import { parsedConfig } from './env-check.js';
import { appliedManifests, ofKind } from './k8s-files.js';
import { workloads } from './k8s-workloads.js';

const { workloads: all } = workloads(appliedManifests());

/*
 * Issue 14.8: behind the Ingress every connection comes from the controller. With no trusted
 * proxies every client shares the controller's address in identity's per-address throttle, so 30
 * failed sign-ins from anyone would block every sign-in for everyone.
 */
describe('k8s/ TRUSTED_PROXIES of the public entries', () => {
  const entries = all.filter((w) => w.component.public);

  it('covers the gateway and the dashboard', () => {
    expect(entries.map((w) => w.component.name).sort()).toEqual(['dashboard', 'gateway']);
  });

  it.each(['gateway', 'dashboard'])('%s: set, valid, and never "everyone" (a /0 would let any client choose its address)', (name) => {
    const w = entries.find((x) => x.component.name === name)!;
    const proxies = parsedConfig(w.component, w.env).TRUSTED_PROXIES as string[];
    expect(proxies.length).toBeGreaterThan(0);
    for (const entry of proxies) expect(entry).not.toMatch(/\/0$/);
  });

  it('the same on both, so the dashboard and the gateway agree on who the client is', () => {
    const [a, b] = ['gateway', 'dashboard'].map((name) => {
      const w = entries.find((x) => x.component.name === name)!;
      return parsedConfig(w.component, w.env).TRUSTED_PROXIES;
    });
    expect(a).toEqual(b);
  });
});

/*
 * Issue 24.8: the gateway and the dashboard take traffic from the Ingress controller's namespace only,
 * and trust X-Forwarded-For from the controller's pods only. The namespace is in the NetworkPolicies'
 * `from:`, the pods' network in the gateway policy's annotation: TRUSTED_PROXIES must be that network.
 */
describe('k8s/ the Ingress controller: NetworkPolicy and TRUSTED_PROXIES in step', () => {
  const policies = ofKind(appliedManifests(), 'NetworkPolicy');
  const policy = (name: string) => policies.find((p) => p.metadata.name === name)!;
  const network = policy('gateway').metadata.annotations?.['acs/ingress-controller-network'];

  it.each(['gateway', 'dashboard'])("%s: every rule names its sources; outside the namespace only the controller's", (name) => {
    const rules = policy(name).spec?.ingress ?? [];
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      expect(rule.from?.length).toBeGreaterThan(0);
      for (const peer of rule.from ?? []) {
        expect(peer.ipBlock).toBeUndefined();
        if (peer.namespaceSelector) expect(peer.namespaceSelector.matchLabels).toEqual({ 'kubernetes.io/metadata.name': 'ingress-nginx' });
      }
    }
  });

  it.each(['gateway', 'dashboard'])("%s trusts exactly the controller's network, not the private ranges", (name) => {
    expect(network).toMatch(/^[0-9a-f.:]+\/\d+$/);
    const w = all.find((x) => x.component.name === name)!;
    expect(parsedConfig(w.component, w.env).TRUSTED_PROXIES).toEqual(network!.split(','));
  });
});
