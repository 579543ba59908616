import { readdirSync } from 'node:fs';
import { parse, parseAllDocuments } from 'yaml';
import { ROOT, readRepoFile } from './components.js';
import { SECRET_FIXTURES, type ContainerEnv } from './env-check.js';

// The k8s/ manifests as plain objects, and what a container's environment resolves to.

export type Labels = Record<string, string>;
export interface KeyRef {
  name: string;
  key: string;
  optional?: boolean;
}
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { configMapKeyRef?: KeyRef; secretKeyRef?: KeyRef };
}
export interface EnvFromSource {
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
}
export interface ContainerPort {
  name?: string;
  containerPort: number;
}
export interface Probe {
  httpGet?: { path: string; port: number | string };
}
export interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: ContainerPort[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] } };
}
export interface PodTemplate {
  metadata: { labels?: Labels; annotations?: Labels };
  spec: {
    containers: Container[];
    securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
    terminationGracePeriodSeconds?: number;
    automountServiceAccountToken?: boolean;
  };
}
export interface NetworkPolicyPeer {
  podSelector?: { matchLabels?: Labels };
  namespaceSelector?: { matchLabels?: Labels };
  ipBlock?: { cidr: string; except?: string[] };
}
export interface NetworkPolicyRule {
  from?: NetworkPolicyPeer[];
  to?: NetworkPolicyPeer[];
  ports?: { port?: number | string; protocol?: string }[];
}

/** The fields these tests read, of every kind they read (Deployment, Service, HPA, PDB, NetworkPolicy, Ingress). */
export interface Spec {
  replicas?: number;
  selector?: Labels | { matchLabels?: Labels };
  template?: PodTemplate;
  ports?: { name?: string; port: number; targetPort?: number | string }[];
  scaleTargetRef?: { apiVersion: string; kind: string; name: string };
  minReplicas?: number;
  maxReplicas?: number;
  metrics?: { type: string; resource?: { name: string } }[];
  podSelector?: { matchLabels?: Labels };
  policyTypes?: string[];
  ingress?: NetworkPolicyRule[];
  egress?: NetworkPolicyRule[];
  rules?: {
    host?: string;
    http?: {
      paths: { path?: string; pathType?: string; backend: { service: { name: string; port: { name?: string; number?: number } } } }[];
    };
  }[];
  tls?: { hosts?: string[]; secretName?: string }[];
}

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Labels; annotations?: Labels };
  spec?: Spec;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

export const k8sFiles = (): string[] =>
  readdirSync(new URL('k8s/', ROOT))
    .filter((file) => file.endsWith('.yaml'))
    .sort();

function parseManifests(text: string, file = '(text)'): Manifest[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`k8s/${file}: ${doc.errors[0]!.message}`);
      return doc.toJS() as Manifest | null;
    })
    .filter((doc): doc is Manifest => doc !== null);
}

const loadManifests = (file: string): Manifest[] => parseManifests(readRepoFile(`k8s/${file}`), file);

export interface Kustomization {
  namespace?: string;
  resources: string[];
  images?: { name: string }[];
}
export const loadKustomization = (): Kustomization => parse(readRepoFile('k8s/kustomization.yaml')) as Kustomization;

/** Everything `kubectl apply -k k8s/` applies (the kustomization's resources), in order. */
export const appliedManifests = (): Manifest[] => loadKustomization().resources.flatMap(loadManifests);

/** The same, with one file's text edited first: how the tests show that a mistake is caught. */
export const appliedManifestsWith = (file: string, edit: (text: string) => string): Manifest[] =>
  loadKustomization().resources.flatMap((name) =>
    name === file ? parseManifests(edit(readRepoFile(`k8s/${name}`)), name) : loadManifests(name),
  );
export const secretExample = (): Manifest => loadManifests('secret.example.yaml').find((m) => m.kind === 'Secret')!;

export const ofKind = (manifests: Manifest[], kind: string): Manifest[] => manifests.filter((m) => m.kind === kind);

/** matchLabels ⊆ labels (an empty selector selects everything). */
export const selects = (matchLabels: Labels | undefined, labels: Labels | undefined): boolean =>
  Object.entries(matchLabels ?? {}).every(([key, value]) => labels?.[key] === value);

/** A probe's or a Service's port (a number or a port name) as a number, or undefined when it names no port. */
export function resolvePort(port: number | string, ports: ContainerPort[]): number | undefined {
  if (typeof port === 'number') return ports.some((p) => p.containerPort === port) ? port : undefined;
  return ports.find((p) => p.name === port)?.containerPort;
}

/**
 * A container's environment: env values, ConfigMap keys (env valueFrom and envFrom) and Secret
 * keys, whose values are the fixtures. Optional references are not guaranteed to be set.
 */
export function k8sEnv(container: Container, configMaps: Manifest[], secret: Manifest): { env: ContainerEnv; problems: string[] } {
  const values: Record<string, string> = {};
  const guaranteed = new Set<string>();
  const problems: string[] = [];
  const configMap = (name: string) => configMaps.find((m) => m.metadata.name === name);
  const set = (name: string, value: string | undefined, sure: boolean) => {
    if (value === undefined) return;
    values[name] = value;
    if (sure && value !== '') guaranteed.add(name);
  };
  for (const source of container.envFrom ?? []) {
    const ref = (source.configMapRef ?? source.secretRef)!;
    const found = source.configMapRef ? configMap(ref.name) : ref.name === secret.metadata.name ? secret : undefined;
    if (!found) {
      problems.push(`envFrom names ${ref.name}, which is not a ConfigMap here nor the Secret example`);
      continue;
    }
    for (const [key, value] of Object.entries(found.data ?? found.stringData ?? {}))
      set(key, source.secretRef ? SECRET_FIXTURES[key] : value, !ref.optional);
  }
  for (const entry of container.env ?? []) {
    if (entry.value !== undefined) set(entry.name, String(entry.value), true);
    const cmRef = entry.valueFrom?.configMapKeyRef;
    const secretRef = entry.valueFrom?.secretKeyRef;
    if (cmRef) {
      const value = configMap(cmRef.name)?.data?.[cmRef.key];
      if (value === undefined && !cmRef.optional) problems.push(`${entry.name}: ConfigMap ${cmRef.name} has no key ${cmRef.key}`);
      set(entry.name, value, !cmRef.optional);
    }
    if (secretRef) {
      if (secretRef.name !== secret.metadata.name)
        problems.push(`${entry.name}: Secret ${secretRef.name} is not the Secret of secret.example.yaml`);
      if (!(secretRef.key in (secret.stringData ?? {}))) problems.push(`${entry.name}: secret.example.yaml has no key ${secretRef.key}`);
      const fixture = SECRET_FIXTURES[secretRef.key];
      if (fixture === undefined) problems.push(`${entry.name}: no test value for Secret key ${secretRef.key} (add it to SECRET_FIXTURES)`);
      set(entry.name, fixture, !secretRef.optional);
    }
  }
  return { env: { values, guaranteed }, problems };
}
