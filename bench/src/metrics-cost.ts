import { performance } from 'node:perf_hooks';
import { GatewayMetrics, ROUTES } from '@acs/gateway';
import { createMetricsRegistry } from '@acs/metrics';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`Usage: node bench/dist/metrics-cost.js

The CPU the gateway's metrics add to one request: the per-request metrics work in a loop.
Prints microseconds per request; run after npm run build.`);
  process.exit(0);
}

// The CPU the gateway's metrics add to one request (docs/performance.md): exactly the per-request
// work handler.ts and forward.ts do, run in a loop. Usage: npm run build && node bench/dist/metrics-cost.js

const ITERATIONS = 2_000_000;
const ROUNDS = 7;
const STATUSES = [200, 200, 200, 200, 201, 204, 401, 403, 404, 503];

const metrics = new GatewayMetrics(createMetricsRegistry('gateway'), ROUTES);
let sink = 0;

/** A proxied request: start time, the route's recorder, the forward context, the answer observed at its end. */
function forwarded(i: number): void {
  const startedMs = performance.now();
  const route = ROUTES[i % ROUTES.length]!;
  const context = { requestId: 'r', logger: null, metrics, recorder: metrics.route(route), startedMs };
  context.recorder.observe(STATUSES[i % STATUSES.length]!, (performance.now() - context.startedMs) / 1000);
  sink += context.startedMs;
}

/** A refusal the gateway writes itself: the same, plus an auth-rejection count. */
function refused(i: number): void {
  const startedMs = performance.now();
  const recorder = metrics.route(ROUTES[i % ROUTES.length]!);
  metrics.authRejected('scope');
  recorder.observe(403, (performance.now() - startedMs) / 1000);
  sink += startedMs;
}

/** The loop alone, so its own cost is not counted. */
function baseline(i: number): void {
  sink += ROUTES[i % ROUTES.length]!.path.length + STATUSES[i % STATUSES.length]!;
}

function nsPerCall(work: (i: number) => void): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) work(i);
  return Number(process.hrtime.bigint() - started) / ITERATIONS;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const samples = { baseline: [] as number[], forwarded: [] as number[], refused: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  samples.baseline.push(nsPerCall(baseline));
  samples.forwarded.push(nsPerCall(forwarded));
  samples.refused.push(nsPerCall(refused));
}
const base = median(samples.baseline);
console.log(
  `node ${process.version}, ${ITERATIONS} requests x ${ROUNDS} rounds (median), over ${ROUTES.length} routes and ${new Set(STATUSES).size} statuses`,
);
console.log(`  forwarded request: +${(median(samples.forwarded) - base).toFixed(0)} ns per request`);
console.log(`  refused (403 scope): +${(median(samples.refused) - base).toFixed(0)} ns per request`);
if (sink === -1) console.log(sink); // keeps the work from being optimised away
