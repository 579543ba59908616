import { Pool } from 'undici';
import type { ServiceProcess } from './processes.js';
import { median } from './scenario.js';

/*
 * --slices "A,B": two contenders measured in alternating slices of a tenth of a second. On a shared machine a
 * proxy's CPU per request moves by 10-50 µs from one second to the next (docs/performance.md), so rounds of a
 * second or more, one contender after the other, bury a feature's 3 µs. Here one load generator sends A's
 * requests for a slice, then B's, and so on, and reads the CPU of the slice's process at every switch (the
 * scheduler's run time, exact to the nanosecond: process-cpu.ts). Adjacent slices meet the same noise, so the
 * difference of each pair is nearly free of it, and the median of a few hundred pairs holds still.
 *
 * A request still in flight at a switch is answered in the next slice: it is counted in neither, and its CPU
 * falls in the other contender's slice. Both directions alike, so it shrinks a difference by a few percent
 * (32 connections, a few ms each, against 100 ms) and never makes one.
 */

export interface SliceContender {
  name: string;
  process: ServiceProcess;
  path: string;
  /** Called at every switch (a signed context expires): the headers of the slice's requests. */
  headers: () => Record<string, string>;
}

export interface Slice {
  contender: 0 | 1;
  /** CPU seconds of the contender's process during the slice. */
  cpuSeconds: number;
  /** Requests of the contender answered during the slice. */
  requests: number;
  errors: number;
  milliseconds: number;
  /** CPU seconds of the bench's Redis during the slice (0 when not measured). */
  redisSeconds: number;
}

export interface SliceOptions {
  seconds: number;
  sliceMs: number;
  connections: number;
  /** The CPU seconds of the Redis both contenders use, read at every switch too. */
  redisCpuSeconds?: () => number;
}

/** The state the workers and the switch share: whose slice it is, and what it has counted so far. */
interface SliceState {
  active: 0 | 1;
  headers: [Record<string, string>, Record<string, string>];
  requests: number;
  errors: number;
  running: boolean;
}

async function worker(state: SliceState, pools: readonly Pool[], contenders: readonly SliceContender[]): Promise<void> {
  while (state.running) {
    const at = state.active;
    const answer = await pools[at]!.request({ path: contenders[at]!.path, method: 'GET', headers: state.headers[at] });
    await answer.body.dump();
    if (at !== state.active) continue;
    state.requests++;
    if (answer.statusCode !== 200) state.errors++;
  }
}

/** Alternates A and B every `sliceMs` for `seconds`, A first; every slice as it was measured. */
export async function runSlices(contenders: readonly [SliceContender, SliceContender], options: SliceOptions): Promise<Slice[]> {
  const pools = contenders.map((c) => new Pool(c.process.url, { connections: options.connections, pipelining: 1 }));
  const state: SliceState = {
    active: 0,
    headers: [contenders[0].headers(), contenders[1].headers()],
    requests: 0,
    errors: 0,
    running: true,
  };
  const slices: Slice[] = [];
  const redisCpu = options.redisCpuSeconds ?? (() => 0);
  let cpuAtStart = contenders[0].process.cpuSeconds();
  let redisAtStart = redisCpu();
  let startedAt = performance.now();
  const switchSlice = (): void => {
    const now = performance.now();
    const current = state.active;
    const cpu = contenders[current].process.cpuSeconds();
    const redis = redisCpu();
    slices.push({
      contender: current,
      cpuSeconds: cpu - cpuAtStart,
      requests: state.requests,
      errors: state.errors,
      milliseconds: now - startedAt,
      redisSeconds: redis - redisAtStart,
    });
    redisAtStart = redis;
    const next = current === 0 ? 1 : 0;
    state.headers[next] = contenders[next].headers();
    state.active = next;
    state.requests = 0;
    state.errors = 0;
    cpuAtStart = contenders[next].process === contenders[current].process ? cpu : contenders[next].process.cpuSeconds();
    startedAt = now;
  };
  const timer = setInterval(switchSlice, options.sliceMs);
  const workers = Array.from({ length: options.connections }, () => worker(state, pools, contenders));
  await new Promise((resolve) => setTimeout(resolve, options.seconds * 1000));
  clearInterval(timer);
  state.running = false;
  await Promise.all(workers);
  await Promise.all(pools.map((pool) => pool.close()));
  return slices;
}

export interface SlicesSummary {
  pairs: number;
  /** A's CPU per request minus B's, µs: the median of adjacent pairs, and its quartiles. */
  difference: number;
  quartiles: [number, number];
  /** A's CPU per request over B's: the median of the pairs. */
  ratio: number;
  /** Over all slices of each: total CPU over total requests (µs). */
  cpuUs: [number, number];
  /** The same for the Redis both use (0 when not measured), and A's over B's: the median of the pairs. */
  redisUs: [number, number];
  redisDifference: number;
  /** Requests a second while it was the contender's slice. */
  rps: [number, number];
  errors: number;
}

const quantile = (values: readonly number[], q: number): number =>
  [...values].sort((x, y) => x - y)[Math.min(values.length - 1, Math.floor(q * values.length))]!;

/**
 * Pairs every two adjacent slices, A then B and B then A alike: pairing only A with the B after it measured
 * +0.8 µs between a scenario and itself (what comes second differs a little from what comes first), which the
 * other order cancels. Slices with fewer than `minRequests` answers (a stall) are left out.
 */
export function summarizeSlices(slices: readonly Slice[], minRequests = 20): SlicesSummary {
  const differences: number[] = [];
  const ratios: number[] = [];
  const redisDifferences: number[] = [];
  for (let i = 0; i + 1 < slices.length; i++) {
    const [first, second] = [slices[i]!, slices[i + 1]!];
    if (first.contender === second.contender || first.requests < minRequests || second.requests < minRequests) continue;
    const [a, b] = first.contender === 0 ? [first, second] : [second, first];
    const perA = (a.cpuSeconds * 1e6) / a.requests;
    const perB = (b.cpuSeconds * 1e6) / b.requests;
    differences.push(perA - perB);
    ratios.push(perA / perB);
    redisDifferences.push((a.redisSeconds * 1e6) / a.requests - (b.redisSeconds * 1e6) / b.requests);
  }
  const total = (contender: 0 | 1, pick: (s: Slice) => number): number =>
    slices.filter((s) => s.contender === contender).reduce((sum, s) => sum + pick(s), 0);
  const requests = (c: 0 | 1): number =>
    Math.max(
      1,
      total(c, (s) => s.requests),
    );
  const perRequest = (c: 0 | 1, pick: (s: Slice) => number = (s) => s.cpuSeconds): number => (total(c, pick) * 1e6) / requests(c);
  const rate = (c: 0 | 1): number =>
    (total(c, (s) => s.requests) * 1000) /
    Math.max(
      1,
      total(c, (s) => s.milliseconds),
    );
  const empty = differences.length === 0;
  return {
    pairs: differences.length,
    difference: empty ? Number.NaN : median(differences),
    quartiles: empty ? [Number.NaN, Number.NaN] : [quantile(differences, 0.25), quantile(differences, 0.75)],
    ratio: empty ? Number.NaN : median(ratios),
    cpuUs: [perRequest(0), perRequest(1)],
    redisUs: [perRequest(0, (s) => s.redisSeconds), perRequest(1, (s) => s.redisSeconds)],
    redisDifference: empty ? Number.NaN : median(redisDifferences),
    rps: [rate(0), rate(1)],
    errors: total(0, (s) => s.errors) + total(1, (s) => s.errors),
  };
}

/** The setup a --slices name is served by: this checkout's, or "NAME@baseline" / "NAME@baselineN" a --baseline one's. */
export function sliceSetupOf<S>(name: string, setups: readonly S[]): { scenario: string; setup: S } {
  const at = name.lastIndexOf('@');
  if (at < 0) return { scenario: name, setup: setups[0]! };
  const which = /^baseline(\d*)$/.exec(name.slice(at + 1));
  const index = which === null ? Number.NaN : which[1] === '' ? 1 : Number(which[1]);
  const setup = setups[index];
  if (setup === undefined || index < 1)
    throw new Error(`--slices: "${name}" names no --baseline checkout (${setups.length - 1} given; "@baseline" is the first)`);
  return { scenario: name.slice(0, at), setup };
}
