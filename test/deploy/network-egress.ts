import { BlockList, isIP } from 'node:net';
import type { Labels, Manifest, NetworkPolicyPeer, NetworkPolicyRule } from './k8s-files.js';
import { selects } from './k8s-files.js';

// NetworkPolicy egress semantics, as far as these manifests use them: a pod selected by any Egress
// policy may open only what one of those policies' rules admits; others are left open.

/** Where a connection goes: the address dialled, and the pod there when it is one. */
export interface Destination {
  address: string;
  pod?: { namespace: string; labels: Labels };
}

/** The namespace kustomization.yaml applies the manifests to. */
const OWN_NAMESPACE = 'acs';

function inCidr(cidr: string, address: string): boolean {
  const [network = '', prefix = ''] = cidr.split('/');
  const family = isIP(network);
  if (family === 0 || family !== isIP(address)) return false;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  const list = new BlockList();
  list.addSubnet(network, Number(prefix), type);
  return list.check(address, type);
}

/** An ipBlock admits its cidr but its exceptions; selectors admit the pods they select (podSelector alone: this namespace's). */
function peerAdmits(peer: NetworkPolicyPeer, to: Destination): boolean {
  if (peer.ipBlock) return inCidr(peer.ipBlock.cidr, to.address) && !(peer.ipBlock.except ?? []).some((c) => inCidr(c, to.address));
  if (!to.pod) return false;
  const namespace = peer.namespaceSelector
    ? selects(peer.namespaceSelector.matchLabels, { 'kubernetes.io/metadata.name': to.pod.namespace })
    : to.pod.namespace === OWN_NAMESPACE;
  return namespace && selects(peer.podSelector?.matchLabels, to.pod.labels);
}

const portAdmits = (rule: NetworkPolicyRule, port: number, protocol: string): boolean =>
  !rule.ports?.length || rule.ports.some((p) => (p.port === undefined || p.port === port) && (p.protocol ?? 'TCP') === protocol);

/** The Egress policies that select a pod with these labels. */
export const egressPolicies = (policies: Manifest[], source: Labels): Manifest[] =>
  policies.filter((p) => p.spec?.policyTypes?.includes('Egress') && selects(p.spec.podSelector?.matchLabels, source));

/** Whether a pod with `source` labels may open `port` (TCP unless said) at the destination. */
export function egressAdmits(policies: Manifest[], source: Labels, to: Destination, port: number, protocol = 'TCP'): boolean {
  const selecting = egressPolicies(policies, source);
  if (selecting.length === 0) return true;
  return selecting.some((policy) =>
    (policy.spec?.egress ?? []).some(
      (rule) => portAdmits(rule, port, protocol) && (!rule.to?.length || rule.to.some((peer) => peerAdmits(peer, to))),
    ),
  );
}
