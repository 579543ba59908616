import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { GatewayTracer } from '@acs/gateway';
import { createLogger } from '@acs/logger';
import { startTracing } from '@acs/tracing';
import { startOtlpSink } from './otlp-sink.js';

// The CPU the gateway's tracing adds to one request (docs/performance.md): exactly the per-request work
// handler.ts, api-key-auth.ts and forward.ts do with tracing on (SERVER span, Redis span, the traceparent for
// the signed context, CLIENT span, ends), run in a loop with the sampler and exporter of production, the
// spans exported to a local sink. Usage: npm run build && node bench/dist/tracing-cost.js [ratio, default 0.01]

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`Usage: node bench/dist/tracing-cost.js [sampling ratio, default 0.01]

The CPU the gateway's tracing adds to one request: the per-request tracing work in a loop, spans
exported to a local sink. Prints microseconds per request; run after npm run build.`);
  process.exit(0);
}

const ITERATIONS = 200_000;
const ROUNDS = 7;
const ratio = process.argv[2] ?? '0.01';
const sink = await startOtlpSink();
// In process.env: the exporter reads its endpoint from there itself.
Object.assign(process.env, {
  OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: ratio,
  OTEL_BSP_MAX_QUEUE_SIZE: '65536',
});
const tracing = await startTracing({
  services: ['gateway'],
  explicitContext: true,
  logger: createLogger({ name: 'tracing-cost', level: 'warn' }),
});
const tracer = new GatewayTracer(false, { 'db.system.name': 'redis', 'server.address': '127.0.0.1', 'server.port': 6379 });
const req = { headers: {}, socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage;
let length = 0;

function request(): void {
  const trace = tracer.start(req, 'GET', '/api/Dac', 'a-request-id');
  trace.route('GET', '/api/Dac');
  const redis = trace.redisSpan('EVALSHA');
  redis?.end();
  const context = { requestId: 'a-request-id', keyId: 'k', scopes: ['read:devices'] };
  Object.assign(context, trace.forwarding('catalog', 'http://127.0.0.1:8082', 'GET', '/api/Dac'));
  length += JSON.stringify(context).length; // the signed context carries the traceparent
  trace.end(200);
}

const perRequestNs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < ITERATIONS; i++) request();
  const used = process.cpuUsage(cpu);
  perRequestNs.push(((used.user + used.system) * 1000) / ITERATIONS);
  // Let the batch processor export between rounds, as the event loop would between requests.
  await new Promise((resolve) => setTimeout(resolve, Math.max(50, performance.now() - started)));
}
await tracing.shutdown();
await sink.close();
perRequestNs.sort((a, b) => a - b);
console.log(
  `tracing on, ratio ${ratio}: ${(perRequestNs[Math.floor(ROUNDS / 2)]! / 1000).toFixed(2)} µs of CPU per request (median of ${ROUNDS} rounds of ${ITERATIONS}; rounds ${perRequestNs.map((n) => (n / 1000).toFixed(2)).join(', ')}), ${sink.exports()} exports, ${(length / ROUNDS / ITERATIONS).toFixed(0)} bytes of signed context`,
);
