import { Counter, type Registry } from 'prom-client';

/** One labelled series of a FlushedCounter; keep it and call inc() on the hot path. */
export class CounterSeries<L extends string = string> {
  value = 0;
  flushed = 0;

  constructor(readonly labels: Readonly<Record<L, string>>) {}

  inc(): void {
    this.value += 1;
  }
}

export interface FlushedCounterConfig<L extends string> {
  registry: Registry;
  name: string;
  help: string;
  labelNames: readonly L[];
}

/**
 * A prom-client Counter whose series are plain numbers, copied into the counter when it is
 * scraped (its collect()). prom-client's own inc() builds a label-hash string and checks the
 * labels on every call; this is one field increment, cheap enough for the gateway's per-request
 * path (docs/performance.md).
 */
export class FlushedCounter<L extends string> {
  private readonly all: CounterSeries<L>[] = [];
  private readonly counter: Counter<L>;

  constructor({ registry, name, help, labelNames }: FlushedCounterConfig<L>) {
    const all = this.all;
    this.counter = new Counter<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        for (const series of all) {
          const delta = series.value - series.flushed;
          if (delta === 0) continue;
          series.flushed = series.value;
          this.inc(series.labels, delta);
        }
      },
    });
  }

  /** A new series, shown as 0 until counted; callers keep it (one per label combination). */
  series(labels: Readonly<Record<L, string>>): CounterSeries<L> {
    const series = new CounterSeries<L>(labels);
    this.counter.inc(labels, 0);
    this.all.push(series);
    return series;
  }
}
