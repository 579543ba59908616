/** One sample line of a Prometheus text exposition. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of `name` in the text (`GET /metrics` bodies), with its labels. */
export function metricSamples(text: string, name: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match || match[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const [, label, value] of (match[2] ?? '').matchAll(LABEL)) labels[label!] = value!;
    samples.push({ name, labels, value: Number(match[3]) });
  }
  return samples;
}

/**
 * The sum of the samples of `name` whose labels include all of `labels` (e.g. every status of one
 * route); undefined when no sample matches, so "absent" and "0" stay distinguishable.
 */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = metricSamples(text, name).filter((sample) =>
    Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  return matching.length === 0 ? undefined : matching.reduce((sum, sample) => sum + sample.value, 0);
}
