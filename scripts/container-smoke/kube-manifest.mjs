// Turns `kubectl kustomize k8s/` into the plan that kube-run.mjs plays with `podman kube play`
// (docs/deploy.md, "Running the deployment files with podman").
//   kubectl kustomize k8s/ | node scripts/container-smoke/kube-manifest.mjs <run id> <secrets.json> <plan.json>
//
// Played as rendered: each Deployment's pod template (image, command, ports, env, envFrom, probes,
// securityContext, resources) and the ConfigMaps. Changed for this machine, and only this:
//   - the Secret acs-secrets has k8s/secret.example.yaml's keys with this run's values
//     (secrets.mjs; a key there without a value fails the run). It is created with `podman secret
//     create` as podman 4.3 reads it (a JSON map of base64 values): kube play stores a Secret
//     document of its own input in a form it then cannot read;
//   - one replica per Deployment (kube play would start the others, to no purpose here);
//   - hostAliases stand in for Service DNS (kube-run.mjs fills them: each Service name a pod
//     refers to resolves to that pod's address) and for the servers (postgres, redis, rabbitmq:
//     the host, where forward.mjs passes connections to the shared servers);
//   - this run's own Redis prefix, exchange and queues in the ConfigMaps (REDIS_PREFIX,
//     BUS_EXCHANGE, SUBSCRIPTION_EVENTS_QUEUE, USER_EVENTS_QUEUE, WEBHOOKS_QUEUE), so the run disturbs no
//     one else on those servers;
//   - WEBHOOKS_ALLOW_PRIVATE_URLS "true" in acs-webhooks: the journey's receiver listens on the host's
//     address on the pods' network, a private one.
// The Job redis-acl-users is played as its pod, once, before the Deployments (kube play 4.3 runs no
// Job): it sets the run's Redis users again with ACL SETUSER, through REDIS_ADMIN_URL, and must exit 0.
// Not played (kube play cannot): Namespace, Service, Ingress, NetworkPolicy, HorizontalPodAutoscaler,
// PodDisruptionBudget, the Job rabbitmq-users (the shared broker has no HTTP API; its users are
// imported with rabbitmqctl instead); test/deploy checks those offline.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseAllDocuments, parseDocument } from 'yaml';

if (process.argv.includes('--help') || process.argv.length < 5) {
  console.log('usage: kubectl kustomize k8s/ | node scripts/container-smoke/kube-manifest.mjs <run id> <secrets.json> <plan.json>');
  process.exit(process.argv.includes('--help') ? 0 : 2);
}
const [, , runId, secretsFile, planFile] = process.argv;
const secrets = JSON.parse(readFileSync(secretsFile, 'utf8'));
const fail = (message) => {
  console.error(`kube-manifest: ${message}`);
  process.exit(1);
};

const PLAYED = new Set(['ConfigMap', 'Deployment']);
const READ_ONLY = new Set(['Namespace', 'Service', 'Ingress', 'NetworkPolicy', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Job']);

const rendered = parseAllDocuments(readFileSync(0, 'utf8')).map((doc) => doc.toJS());
const unknownKinds = rendered.filter((o) => !PLAYED.has(o.kind) && !READ_ONLY.has(o.kind)).map((o) => `${o.kind}/${o.metadata.name}`);
if (unknownKinds.length) fail(`no rule for ${unknownKinds.join(', ')}: play it or list it as read-only here and in docs/deploy.md`);

const example = parseDocument(readFileSync(new URL('../../k8s/secret.example.yaml', import.meta.url), 'utf8')).toJS();
const missing = Object.keys(example.stringData).filter((key) => secrets[key] === undefined);
if (missing.length) fail(`k8s/secret.example.yaml has ${missing.join(', ')}, which scripts/container-smoke/secrets.mjs gives no value`);
const secretValues = Object.fromEntries(Object.keys(example.stringData).map((key) => [key, secrets[key]]));

const RUN_SETTINGS = { REDIS_PREFIX: `${runId}:`, BUS_EXCHANGE: `${runId}.events` };
const USER_EVENTS_CONSUMERS = ['keys', 'billing', 'device'];
const configMaps = Object.fromEntries(
  rendered
    .filter((o) => o.kind === 'ConfigMap')
    .map((map) => {
      const data = { ...map.data };
      for (const [name, value] of Object.entries(RUN_SETTINGS)) if (name in data) data[name] = value;
      // identity's queue is not in its ConfigMap (the default name suits a cluster of its own).
      if (map.metadata.name === 'acs-identity') data.SUBSCRIPTION_EVENTS_QUEUE = `${runId}.subscription-events`;
      // Nor the user-events queues of keys, billing and device (each service's default, <service>.user-events).
      const consumer = USER_EVENTS_CONSUMERS.find((service) => map.metadata.name === `acs-${service}`);
      if (consumer) data.USER_EVENTS_QUEUE = `${runId}.${consumer}-user-events`;
      if (map.metadata.name === 'acs-webhooks')
        Object.assign(data, { WEBHOOKS_QUEUE: `${runId}.webhooks-events`, WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' });
      return [map.metadata.name, { ...map, data }];
    }),
);

// A Job's pod as kube play runs a Pod: once (restartPolicy Never: retrying is the Job controller's part).
const PLAYED_JOBS = new Set(['redis-acl-users']);
const jobs = rendered
  .filter((o) => o.kind === 'Job' && PLAYED_JOBS.has(o.metadata.name))
  .map((job) => {
    const spec = job.spec.template.spec;
    const refs = spec.containers.flatMap((c) => (c.env ?? []).map((e) => e.valueFrom?.configMapKeyRef?.name).filter(Boolean));
    return {
      name: job.metadata.name,
      container: spec.containers[0].name,
      configMaps: [...new Set(refs)],
      pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: job.metadata.name }, spec: { ...spec, restartPolicy: 'Never' } },
    };
  });
if (jobs.length !== PLAYED_JOBS.size) fail(`the manifests have no Job ${[...PLAYED_JOBS].join(', ')} to play`);

const serviceNames = rendered.filter((o) => o.kind === 'Service').map((o) => o.metadata.name);
const deployments = rendered.filter((o) => o.kind === 'Deployment');

/** The Services a pod calls: the names in `http://<name>:` of its environment, literal or from its ConfigMaps. */
function calledServices(podSpec) {
  const values = podSpec.containers.flatMap((c) => [
    ...(c.env ?? []).map((e) => e.value ?? ''),
    ...(c.envFrom ?? []).flatMap((e) => Object.values(configMaps[e.configMapRef?.name]?.data ?? {})),
  ]);
  return serviceNames.filter((name) => values.some((v) => String(v).includes(`//${name}:`)));
}

const describe = (deployment) => {
  const podSpec = deployment.spec.template.spec;
  return {
    name: deployment.metadata.name,
    calls: calledServices(podSpec),
    configMaps: [...new Set(podSpec.containers.flatMap((c) => (c.envFrom ?? []).map((e) => e.configMapRef?.name).filter(Boolean)))],
    deployment: { ...deployment, spec: { ...deployment.spec, replicas: 1 } },
    containers: podSpec.containers.map((c) => ({
      name: c.name,
      command: c.command ?? null,
      ports: Object.fromEntries((c.ports ?? []).map((p) => [p.name ?? String(p.containerPort), p.containerPort])),
      probes: ['startupProbe', 'livenessProbe', 'readinessProbe'].filter((kind) => c[kind]).map((kind) => ({ kind, ...c[kind] })),
      env: (c.env ?? []).map((e) => ({ name: e.name, value: e.value ?? null, secretKey: e.valueFrom?.secretKeyRef?.key ?? null })),
      envFrom: (c.envFrom ?? []).map((e) => e.configMapRef?.name ?? `secret:${e.secretRef?.name}`),
      runAsUser: c.securityContext?.runAsUser ?? podSpec.securityContext?.runAsUser ?? null,
      readOnlyRootFilesystem: c.securityContext?.readOnlyRootFilesystem === true,
    })),
  };
};

// Dependencies first, so every hostAlias names a pod that is already running.
const pending = deployments.map(describe);
const order = [];
while (pending.length) {
  const next = pending.findIndex((d) => d.calls.every((name) => order.some((o) => o.name === name)));
  if (next < 0)
    fail(
      `the Deployments call each other in a circle or call a Service no Deployment backs: ${pending.map((d) => `${d.name} -> ${d.calls.join(',')}`).join('; ')}`,
    );
  order.push(...pending.splice(next, 1));
}

const readKinds = [...new Set(rendered.filter((o) => READ_ONLY.has(o.kind)).map((o) => o.kind))];
writeFileSync(planFile, `${JSON.stringify({ jobs, deployments: order, configMaps, secretValues, readKinds }, null, 2)}\n`);
console.log(
  `kube-manifest: the Job ${jobs.map((j) => j.name).join(', ')}, ${order.length} Deployments (in this order: ${order.map((d) => d.name).join(', ')}), ${Object.keys(configMaps).length} ConfigMaps and the Secret to play; read only (test/deploy): ${readKinds.join(', ')} (the other Jobs)`,
);
