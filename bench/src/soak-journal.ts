/** A dependency cut by the soak run; 5xx while it is down, or within `recoveryMs` after, are expected. */
export interface Outage {
  dependency: string;
  cutAt: number;
  /** 0 while still cut. */
  restoredAt: number;
  recoveryMs: number;
}

interface Counts {
  requests: number;
  /** status -> count */
  statuses: Map<number, number>;
}

export interface ProcessMemory {
  name: string;
  pid: number | undefined;
  startMiB: number;
  endMiB: number;
}

export interface ReportInput {
  minutes: number;
  clients: number;
  outageSeconds: number;
  recoverySeconds: number;
  neverArrived: number;
  memory: ProcessMemory[];
}

const increment = (map: Map<number, number>, key: number): void => {
  map.set(key, (map.get(key) ?? 0) + 1);
};

/** What the soak run saw: every request by operation and status, 5xx split by outage window, and the freshness checks. */
export class SoakJournal {
  readonly outages: Outage[] = [];
  private byOperation = new Map<string, Counts>();
  private requests = 0;
  private serverErrorsOutside: { op: string; status: number; at: number }[] = [];
  private serverErrorsInside = new Map<string, number>();
  private subscriptions = 0;
  private roleDelays: number[] = [];
  private keyChecks = { applied: 0, unverified: 0, notApplied: [] as string[] };

  reset(): void {
    this.byOperation.clear();
    this.requests = 0;
    this.serverErrorsOutside = [];
    this.serverErrorsInside.clear();
  }

  /** The outage a request overlapped, if any (status 0 is a failure to connect or a timeout). */
  private outageOf(startedAt: number, endedAt: number): Outage | undefined {
    return this.outages.find((o) => startedAt <= (o.restoredAt === 0 ? Infinity : o.restoredAt + o.recoveryMs) && endedAt >= o.cutAt);
  }

  record(op: string, method: string, status: number, startedAt: number, endedAt: number): void {
    if (op === 'setup') return;
    this.requests++;
    let counts = this.byOperation.get(op);
    if (!counts) {
      counts = { requests: 0, statuses: new Map() };
      this.byOperation.set(op, counts);
    }
    counts.requests++;
    increment(counts.statuses, status);
    if (status >= 500 || status === 0) {
      const outage = this.outageOf(startedAt, endedAt);
      if (outage) this.serverErrorsInside.set(outage.dependency, (this.serverErrorsInside.get(outage.dependency) ?? 0) + 1);
      else this.serverErrorsOutside.push({ op: `${op}${op.startsWith(method) ? '' : ` (${method})`}`, status, at: endedAt });
    }
  }

  subscriptionCreated(): void {
    this.subscriptions++;
  }

  roleArrived(ms: number): void {
    this.roleDelays.push(ms);
  }

  keyChangeApplied(): void {
    this.keyChecks.applied++;
  }

  keyChangeUnverified(): void {
    this.keyChecks.unverified++;
  }

  keyChangeNotApplied(what: string): void {
    this.keyChecks.notApplied.push(what);
  }

  progressLine(startedAt: number): string {
    const seconds = (Date.now() - startedAt) / 1000;
    const inside = [...this.serverErrorsInside.values()].reduce((a, b) => a + b, 0);
    const down = this.outages.filter((o) => o.restoredAt === 0).map((o) => `${o.dependency} DOWN`);
    return `${seconds.toFixed(0).padStart(4)} s  ${this.requests} requests (${(this.requests / seconds).toFixed(0)}/s)  5xx outside outages ${this.serverErrorsOutside.length}, inside ${inside}  subscriptions ${this.subscriptions} (role arrived ${this.roleDelays.length})  key changes checked ${this.keyChecks.applied + this.keyChecks.notApplied.length}${down.length ? `  [${down.join(', ')}]` : ''}`;
  }

  report(input: ReportInput): { text: string; figures: Record<string, unknown>; goalsMet: boolean } {
    const sorted = [...this.roleDelays].sort((a, b) => a - b);
    const pct = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
    const operations = [...this.byOperation]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([op, c]) => ({ op, requests: c.requests, statuses: Object.fromEntries([...c.statuses].sort(([a], [b]) => a - b)) }));
    const figures = {
      minutes: input.minutes,
      clients: input.clients,
      outageSeconds: input.outageSeconds,
      recoverySeconds: input.recoverySeconds,
      requests: this.requests,
      serverErrorsOutsideOutages: this.serverErrorsOutside.length,
      serverErrorsOutsideOutagesList: this.serverErrorsOutside.slice(0, 50),
      serverErrorsInsideOutages: Object.fromEntries(this.serverErrorsInside),
      outages: this.outages.map((o) => ({ dependency: o.dependency, downSeconds: (o.restoredAt - o.cutAt) / 1000 })),
      subscriptions: this.subscriptions,
      roleChangesArrived: this.roleDelays.length,
      roleChangesNeverArrived: input.neverArrived,
      roleDelayMs: { p50: pct(0.5), p99: pct(0.99), max: sorted.at(-1) ?? 0 },
      keyChangesApplied: this.keyChecks.applied,
      keyChangesNotApplied: this.keyChecks.notApplied.length,
      keyChangesNotAppliedList: this.keyChecks.notApplied.slice(0, 50),
      keyChangesUnverified: this.keyChecks.unverified,
      memory: input.memory,
      operations,
    };
    const goalsMet = this.serverErrorsOutside.length === 0 && input.neverArrived === 0 && this.keyChecks.notApplied.length === 0;
    const lines = [
      `soak: ${input.minutes} min, ${input.clients} clients, ${this.requests} requests`,
      `outages (${input.outageSeconds} s each, +${input.recoverySeconds} s recovery window): ${figures.outages.map((o) => `${o.dependency} ${o.downSeconds.toFixed(1)} s`).join(', ')}`,
      `5xx outside the outage windows: ${this.serverErrorsOutside.length} (goal 0)${
        this.serverErrorsOutside.length
          ? `: ${this.serverErrorsOutside
              .slice(0, 10)
              .map((e) => `${e.op} ${e.status}`)
              .join('; ')}`
          : ''
      }`,
      `5xx inside them: ${[...this.serverErrorsInside].map(([d, n]) => `${d} ${n}`).join(', ') || 'none'}`,
      `subscriptions: ${this.subscriptions}; role change arrived ${this.roleDelays.length} (p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${sorted.at(-1) ?? 0} ms); never arrived ${input.neverArrived} (goal 0)`,
      `key changes checked on the next request: ${this.keyChecks.applied + this.keyChecks.notApplied.length}; not applied ${this.keyChecks.notApplied.length} (goal 0)${this.keyChecks.notApplied.length ? `: ${this.keyChecks.notApplied.slice(0, 5).join('; ')}` : ''}; unverifiable (next request 5xx) ${this.keyChecks.unverified}`,
      'resident memory (MiB), start -> end:',
      ...input.memory.map((m) => `  ${m.name.padEnd(10)} ${m.startMiB.toFixed(1).padStart(7)} -> ${m.endMiB.toFixed(1).padStart(7)}`),
      'requests by operation (status: count):',
      ...operations.map(
        (o) =>
          `  ${o.op.padEnd(34)} ${String(o.requests).padStart(7)}  ${Object.entries(o.statuses)
            .map(([s, n]) => `${s}: ${n}`)
            .join(', ')}`,
      ),
      `goals ${goalsMet ? 'met' : 'NOT met'}`,
    ];
    return { text: lines.join('\n'), figures, goalsMet };
  }
}
