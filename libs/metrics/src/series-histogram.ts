import type { Metric, Registry } from 'prom-client';

/** One labelled series of a SeriesHistogram; keep it and call observe() on the hot path. */
export class HistogramSeries<L extends string = string> {
  /** Observations per bucket, not cumulative; the last slot is past every bound (+Inf). */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<L, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  /** A finite value (seconds, for durations); it lands in the first bucket whose bound it does not exceed. */
  observe(value: number): void {
    const bounds = this.bounds;
    let slot = 0;
    while (slot < bounds.length && value > bounds[slot]!) slot++;
    this.counts[slot] = this.counts[slot]! + 1;
    this.sum += value;
    this.count += 1;
  }
}

export interface SeriesHistogramConfig<L extends string> {
  registry: Registry;
  name: string;
  help: string;
  labelNames: readonly L[];
  /** Upper bounds, ascending. */
  buckets: readonly number[];
}

interface ExportedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/**
 * A Prometheus histogram whose series are plain bucket counts, written out only when Prometheus
 * scrapes. prom-client's Histogram builds a label-hash string and validates the labels on every
 * observe(); the gateway observes once per request, so its series are kept here instead and the
 * registry renders them through the same get() every prom-client metric offers (same
 * `_bucket`/`_sum`/`_count` lines, tested against the text exposition).
 */
export class SeriesHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly bounds: readonly number[];
  private readonly all: HistogramSeries<L>[] = [];

  constructor({ registry, name, help, labelNames, buckets }: SeriesHistogramConfig<L>) {
    if (buckets.some((bound, i) => !Number.isFinite(bound) || (i > 0 && bound <= buckets[i - 1]!)))
      throw new Error(`${name}: buckets must be finite and ascending`);
    if ((labelNames as readonly string[]).includes('le')) throw new Error(`${name}: "le" is the bucket label`);
    this.name = name;
    this.help = help;
    this.bounds = [...buckets];
    // The registry only asks a metric for its name, get(), reset() and aggregator; it is typed for
    // prom-client's own classes, hence the cast.
    registry.registerMetric(this as unknown as Metric);
  }

  /** A new series, shown with zero counts until observed; callers keep it (one per label combination). */
  series(labels: Readonly<Record<L, string>>): HistogramSeries<L> {
    const series = new HistogramSeries<L>(labels, this.bounds);
    this.all.push(series);
    return series;
  }

  async get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: ExportedValue[] }> {
    const values: ExportedValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const series of this.all) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += series.counts[i]!;
        values.push({ labels: { ...series.labels, le: this.bounds[i]! }, value: cumulative, metricName: bucket });
      }
      values.push({ labels: { ...series.labels, le: '+Inf' }, value: series.count, metricName: bucket });
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    for (const series of this.all) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}
