import { componentOfCommand, type Component } from './components.js';
import { envProblems, type ContainerEnv } from './env-check.js';
import { k8sEnv, ofKind, secretExample, type Container, type Labels, type Manifest } from './k8s-files.js';
import type { Pod } from './network-policy.js';

/** One Deployment of our image: its container, the process it starts, its resolved environment. */
export interface Workload {
  deployment: Manifest;
  container: Container;
  component: Component;
  env: ContainerEnv;
  labels: Labels;
  pod: Pod;
}

/** The Deployments and what is wrong with them (unknown entry, bad references, environment). */
export function workloads(manifests: Manifest[]): { workloads: Workload[]; problems: string[] } {
  const configMaps = ofKind(manifests, 'ConfigMap');
  const secret = secretExample();
  const found: Workload[] = [];
  const problems: string[] = [];
  for (const deployment of ofKind(manifests, 'Deployment')) {
    const where = `Deployment ${deployment.metadata.name}`;
    const containers = deployment.spec?.template?.spec.containers ?? [];
    if (containers.length !== 1) {
      problems.push(`${where}: expected one container, found ${containers.length}`);
      continue;
    }
    const container = containers[0]!;
    const component = componentOfCommand(container.command);
    if (typeof component === 'string') {
      problems.push(`${where}: ${component}`);
      continue;
    }
    const resolved = k8sEnv(container, configMaps, secret);
    problems.push(...resolved.problems.map((p) => `${where}: ${p}`), ...envProblems(where, component, resolved.env));
    const labels = deployment.spec?.template?.metadata.labels ?? {};
    found.push({ deployment, container, component, env: resolved.env, labels, pod: { labels, ports: container.ports ?? [] } });
  }
  return { workloads: found, problems };
}
