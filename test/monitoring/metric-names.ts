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
export const EXTERNAL_METRICS: readonly string[] = ['up', 'kube_pod_status_ready'];

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

/** name → type of each metric the sources register with `new Counter|Gauge|Histogram|…({ name })`. */
export function registeredMetrics(): Map<string, MetricType> {
  const texts = productionSources().map((file) => readFileSync(file, 'utf8'));
  const constants = new Map<string, string>();
  for (const text of texts) for (const [, name, value] of text.matchAll(/const ([A-Z0-9_]+) = '([^']*)'/g)) constants.set(name!, value!);
  const metrics = new Map<string, MetricType>();
  for (const text of texts) {
    for (const match of text.matchAll(/new (Counter|FlushedCounter|Gauge|Histogram|SeriesHistogram|Summary)\b(?:<[^>]*>)?\(/g)) {
      // The options object's `name:` follows the constructor within a few lines (after `registry,`).
      const options = text.slice(match.index + match[0].length, match.index + match[0].length + 300);
      const named = /\bname:\s*(?:'([^']+)'|([A-Z0-9_]+)\b)/.exec(options);
      if (!named) continue;
      const name = named[1] ?? constants.get(named[2]!);
      if (name !== undefined) metrics.set(name, CONSTRUCTORS[match[1]!]!);
    }
  }
  return metrics;
}

/** name → type of the process and Node.js metrics (prom-client's defaults) every process's registry holds. */
export async function defaultMetrics(): Promise<Map<string, MetricType>> {
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

const PROMQL_KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'offset', 'inf', 'nan']);

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
