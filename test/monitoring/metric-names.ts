import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMetricsRegistry } from '@acs/metrics';

// Which metric names exist: the ones the code registers (found in the sources, so a metric renamed
// in the code fails the rules and the dashboard that still use the old name), prom-client's
// defaults (asked of the registry every process creates, so they are the ones it exposes), and the
// series a Prometheus on Kubernetes has without us: `up` (every scrape) and kube-state-metrics'
// pod readiness.

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Series that come from Prometheus or kube-state-metrics, not from this code. */
const EXTERNAL_METRICS: readonly string[] = ['up', 'kube_pod_status_ready'];

type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary';

const CONSTRUCTORS: Record<string, MetricType> = {
  Counter: 'counter',
  FlushedCounter: 'counter',
  Gauge: 'gauge',
  Histogram: 'histogram',
  SeriesHistogram: 'histogram',
  Summary: 'summary',
};

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );

/** Every .ts file under libs/*\/src, gateway/src and services/*\/src (tests excluded). */
function productionSources(): string[] {
  const packages = (parent: string) => readdirSync(join(ROOT, parent)).map((name) => join(ROOT, parent, name, 'src'));
  return [...packages('libs'), join(ROOT, 'gateway', 'src'), ...packages('services')].flatMap((dir) => {
    try {
      return sourceFiles(dir);
    } catch {
      return []; // a package without src/
    }
  });
}

interface RegisteredMetric {
  type: MetricType;
  labels: string[];
}

const quotedNames = (list: string): string[] => [...list.matchAll(/'([^']+)'/g)].map((m) => m[1]!);

/**
 * Each metric the sources register with `new Counter|Gauge|Histogram|…({ name, labelNames })`: its
 * type and label names (a `labelNames` shorthand is the file's `const labelNames = [...]`).
 */
function scanSources(): Map<string, RegisteredMetric> {
  const texts = productionSources().map((file) => readFileSync(file, 'utf8'));
  const constants = new Map<string, string>();
  for (const text of texts) for (const [, name, value] of text.matchAll(/const ([A-Z0-9_]+) = '([^']*)'/g)) constants.set(name!, value!);
  const metrics = new Map<string, RegisteredMetric>();
  for (const text of texts) {
    for (const match of text.matchAll(/new (Counter|FlushedCounter|Gauge|Histogram|SeriesHistogram|Summary)\b(?:<[^>]*>)?\(/g)) {
      // The options object's `name:` and `labelNames` follow the constructor within a few lines.
      const options = text.slice(match.index + match[0].length, match.index + match[0].length + 400);
      const named = /\bname:\s*(?:'([^']+)'|([A-Z0-9_]+)\b)/.exec(options);
      if (!named) continue;
      const name = named[1] ?? constants.get(named[2]!);
      if (name === undefined) continue;
      const listed = /\blabelNames:\s*\[([^\]]*)\]/.exec(options);
      const shorthand = /\blabelNames\s*[,}]/.test(options) ? /const labelNames = \[([^\]]*)\]/.exec(text) : null;
      metrics.set(name, { type: CONSTRUCTORS[match[1]!]!, labels: quotedNames((listed ?? shorthand)?.[1] ?? '') });
    }
  }
  // libs/outbox registers two gauges per service under the names the service declares: an OutboxGaugeNames
  // literal, or outboxGaugeNames('<service>', ...), which names them <service>_outbox_pending_events and
  // <service>_outbox_oldest_pending_age_seconds (libs/outbox/src/outbox-gauges.ts).
  for (const text of texts) {
    for (const [, body] of text.matchAll(/: OutboxGaugeNames = \{([^}]*)\}/g)) {
      for (const [, name] of body!.matchAll(/\b(?:pending|oldestAge):\s*'([^']+)'/g)) metrics.set(name!, { type: 'gauge', labels: [] });
    }
    for (const [, service] of text.matchAll(/\boutboxGaugeNames\('([a-z]+)'/g)) {
      metrics.set(`${service}_outbox_pending_events`, { type: 'gauge', labels: [] });
      metrics.set(`${service}_outbox_oldest_pending_age_seconds`, { type: 'gauge', labels: [] });
    }
  }
  return metrics;
}

/** name → type of each metric the sources register. */
export function registeredMetrics(): Map<string, MetricType> {
  return new Map([...scanSources()].map(([name, metric]) => [name, metric.type]));
}

/** name → label names of each metric the sources register (without the `service` every series carries). */
export function registeredLabels(): Map<string, string[]> {
  return new Map([...scanSources()].map(([name, metric]) => [name, metric.labels]));
}

/** name → type of the process and Node.js metrics (prom-client's defaults) every process's registry holds. */
async function defaultMetrics(): Promise<Map<string, MetricType>> {
  const registry = createMetricsRegistry('monitoring-test');
  return new Map((await registry.getMetricsAsJSON()).map((metric) => [metric.name, String(metric.type) as MetricType]));
}

/** The series names a metric of that type exposes (a histogram: only its _bucket, _sum, _count). */
function seriesNames(name: string, type: MetricType): string[] {
  if (type === 'histogram') return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
  if (type === 'summary') return [name, `${name}_sum`, `${name}_count`];
  return [name];
}

/** Every series name a query may use. */
export async function knownSeriesNames(): Promise<Set<string>> {
  const all = [...registeredMetrics(), ...(await defaultMetrics())];
  return new Set([...all.flatMap(([name, type]) => seriesNames(name, type)), ...EXTERNAL_METRICS]);
}

/** Labels every scraped series has: the registry's `service`, and what Prometheus or Kubernetes service discovery adds. */
const TARGET_LABELS: readonly string[] = ['service', 'instance', 'job', 'namespace', 'pod', 'container'];

/** The labels of the external series the rules use (kube-state-metrics' pod readiness, Prometheus's up). */
const EXTERNAL_LABELS: Record<string, readonly string[]> = { up: [], kube_pod_status_ready: ['condition', 'uid'] };

/** series name → the labels a query may use on it; undefined for an unknown series. */
export async function knownSeriesLabels(): Promise<Map<string, Set<string>>> {
  const labels = new Map<string, Set<string>>();
  const registered = scanSources();
  for (const [name, type] of [...registered].map(([n, m]) => [n, m.type] as const).concat([...(await defaultMetrics())])) {
    const own = registered.get(name)?.labels ?? [];
    for (const series of seriesNames(name, type))
      labels.set(series, new Set([...TARGET_LABELS, ...own, ...(series.endsWith('_bucket') ? ['le'] : [])]));
  }
  for (const [name, own] of Object.entries(EXTERNAL_LABELS)) labels.set(name, new Set([...TARGET_LABELS, ...own]));
  return labels;
}

/**
 * The labels an expression names, by the series they apply to: a selector's matchers apply to its
 * metric; a grouping clause (by, on, ignoring, …) to any series of the expression, so it is
 * reported against all of them and a label none of them has is the mistake.
 */
function labelUses(expr: string): { selectors: { metric: string; label: string }[]; grouping: string[] } {
  const text = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const selectors = [...text.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\s*\{([^}]*)\}/g)].flatMap(([, metric, matchers]) =>
    [...matchers!.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((m) => ({ metric: metric!, label: m[1]! })),
  );
  const grouping = [...text.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/gi)].flatMap(([, list]) =>
    list!
      .split(',')
      .map((label) => label.trim())
      .filter((label) => label.length > 0),
  );
  return { selectors, grouping };
}

/** What is wrong with the labels of an expression: a matcher on a label its metric lacks, a grouping label no metric of it has. */
export function unknownLabels(expr: string, known: Map<string, Set<string>>): string[] {
  const { selectors, grouping } = labelUses(expr);
  const metrics = metricNamesIn(expr);
  return [
    ...selectors
      .filter(({ metric, label }) => known.get(metric) !== undefined && !known.get(metric)!.has(label))
      .map(({ metric, label }) => `${metric}{${label}}`),
    ...grouping.filter((label) => !metrics.some((m) => known.get(m)?.has(label))).map((label) => `by/on (${label})`),
  ];
}

const PROMQL_KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression selects. Strings, label matchers, range and subquery
 * brackets, grouping clauses and numbers are removed first; what is left is function names
 * (followed by "("), keywords, and the metric names.
 */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, ' ')
    .replace(/\boffset\s+-?[0-9a-z]+/gi, ' ')
    .replace(/(?<![A-Za-z0-9_:])\d+(?:\.\d+)?(?:e[+-]?\d+)?[smhdwy]*/gi, ' ');
  const names = [...stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(?!\s*\()(?![A-Za-z0-9_:])/g)].map((m) => m[0]);
  return [...new Set(names.filter((name) => !PROMQL_KEYWORDS.has(name.toLowerCase())))];
}
