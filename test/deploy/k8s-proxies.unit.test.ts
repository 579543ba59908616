import { describe, expect, it } from '@jest/globals';
import { parsedConfig } from './env-check.js';
import { appliedManifests } from './k8s-files.js';
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
