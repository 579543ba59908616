import type { ContainerPort, Labels, Manifest, NetworkPolicyRule } from './k8s-files.js';
import { resolvePort, selects } from './k8s-files.js';

// NetworkPolicy semantics, as far as these manifests use them: a pod selected by any Ingress
// policy takes only what one of those policies' rules admits.

export interface Pod {
  labels: Labels;
  ports: ContainerPort[];
}

const ingressPolicies = (policies: Manifest[], pod: Pod): Manifest[] =>
  policies.filter((p) => (p.spec?.policyTypes ?? ['Ingress']).includes('Ingress') && selects(p.spec?.podSelector?.matchLabels, pod.labels));

const rulePorts = (rule: NetworkPolicyRule, pod: Pod): (number | undefined)[] | 'all' =>
  rule.ports?.length
    ? rule.ports.map((p) =>
        p.port === undefined ? undefined : (resolvePort(p.port, pod.ports) ?? (typeof p.port === 'number' ? p.port : undefined)),
      )
    : 'all';

const admitsPort = (rule: NetworkPolicyRule, pod: Pod, port: number): boolean => {
  const ports = rulePorts(rule, pod);
  return ports === 'all' || ports.includes(port);
};

/** Whether a pod of this namespace with `source` labels may open `port` on `target`. */
export function admitsFromPod(policies: Manifest[], source: Labels, target: Pod, port: number): boolean {
  const selecting = ingressPolicies(policies, target);
  if (selecting.length === 0) return true;
  return selecting.some((policy) =>
    (policy.spec?.ingress ?? []).some(
      (rule) =>
        admitsPort(rule, target, port) &&
        (!rule.from?.length ||
          rule.from.some(
            (peer) => peer.podSelector && !peer.namespaceSelector && !peer.ipBlock && selects(peer.podSelector.matchLabels, source),
          )),
    ),
  );
}

/** Whether the pod is isolated at all: some policy selects it for Ingress. */
export const isIsolated = (policies: Manifest[], pod: Pod): boolean => ingressPolicies(policies, pod).length > 0;

/**
 * The ports of `target` that admit traffic from outside the namespace, and from whom: `anyone`
 * (a rule without `from`, or an ipBlock) or `namespaces` (a namespaceSelector).
 */
export function outsidePorts(policies: Manifest[], target: Pod): { port: number | 'all'; from: 'anyone' | 'namespaces' }[] {
  const found: { port: number | 'all'; from: 'anyone' | 'namespaces' }[] = [];
  for (const policy of ingressPolicies(policies, target)) {
    for (const rule of policy.spec?.ingress ?? []) {
      const open = !rule.from?.length || rule.from.some((peer) => peer.ipBlock !== undefined);
      const namespaces = rule.from?.some((peer) => peer.namespaceSelector !== undefined) ?? false;
      if (!open && !namespaces) continue;
      const ports = rulePorts(rule, target);
      // A port the pod does not listen on admits nothing (one policy may list several pods' ports).
      const listened =
        ports === 'all'
          ? ['all' as const]
          : ports.filter((port) => port === undefined || target.ports.some((p) => p.containerPort === port));
      for (const port of listened) found.push({ port: port ?? 'all', from: open ? 'anyone' : 'namespaces' });
    }
  }
  return found;
}
