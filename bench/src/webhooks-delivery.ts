import { randomInt, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createAmqpBus, DEFAULT_RETRY_DELAYS_MS, subscriptionQueueNames } from '@acs/bus';
import { API_KEY_EVENT_TYPES, API_KEY_ROUTING_KEYS } from '@acs/contracts';
import { createLogger } from '@acs/logger';
import { deleteAmqpObjects, signedFetch, testServerUrl, uniqueName } from '@acs/testing';
import { benchOptions } from './bench-options.js';
import { startProcess } from './processes.js';

const HELP = `How fast do webhooks go out (issue 30)? Runs the webhooks service as a process on the real PostgreSQL and
RabbitMQ, registers one endpoint per user (a receiver in this process, answering 204 at once), publishes --events
api_key.created events spread over --users users at --rate per second, as keys' outbox relay publishes them, and
measures each delivery's latency from the event's publish (its commit, for the relay's part see the outbox figures) to
the receiver, and the throughput over the run.

Usage: npm run bench:webhooks -- [--events 3000] [--users 100] [--rate 300]`;

const values = benchOptions(HELP, {
  events: { type: 'string', default: '3000' },
  users: { type: 'string', default: '100' },
  rate: { type: 'string', default: '300' },
});
const [eventCount, userCount, rate] = [values.events, values.users, values.rate].map(Number) as [number, number, number];

const INTERNAL_SECRET = 'bench-internal-secret-0123456789abcdefgh';
const base = uniqueName('acs_bench_webhooks');
const exchange = `${base}.events`;
const queue = `${base}.webhooks`;
const serverUrl = testServerUrl('DATABASE_URL');
const dbUrl = new URL(serverUrl);
dbUrl.pathname = `/${base}_webhooks`;
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

const latencies: number[] = [];
let lastAt = 0;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const now = Date.now();
    const { data } = JSON.parse(Buffer.concat(chunks).toString()) as { data: { name: string } };
    latencies.push(now - Number(data.name)); // the name carries the publish time
    lastAt = now;
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`CREATE DATABASE "${base}_webhooks"`);
const webhooks = await startProcess('webhooks', 'services/webhooks/dist/main.js', {
  INTERNAL_SECRET,
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  DATABASE_URL: dbUrl.toString(),
  AMQP_URL,
  BUS_EXCHANGE: exchange,
  WEBHOOKS_QUEUE: queue,
  WEBHOOKS_SECRET_KEY: 'bench-webhook-secret-key-0123456789abcdef',
  WEBHOOKS_ALLOW_PRIVATE_URLS: 'true',
});
const bus = createAmqpBus({ url: AMQP_URL, exchange, logger: createLogger({ name: 'bench', level: 'warn' }) });
try {
  const users = Array.from({ length: userCount }, () => randomInt(1_000_000, 2_000_000_000));
  for (const userId of users) {
    const response = await signedFetch(webhooks.url, INTERNAL_SECRET, 'POST', '/api/Webhooks', {
      body: { url: `${receiverUrl}/u${userId}`, events: ['api_key.created'] },
      context: { keyId: 'bench', scopes: ['system:full-access'], userId, role: 0 },
    });
    if (response.status !== 201) throw new Error(`registering an endpoint answered ${response.status}`);
  }
  const started = Date.now();
  // Not awaited one by one: a publisher confirm per event would cap the offered rate, not the service.
  const published: Promise<void>[] = [];
  for (let i = 0; i < eventCount; i++) {
    const due = started + (i * 1000) / rate;
    if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    const id = randomUUID();
    const occurredAt = new Date().toISOString();
    published.push(
      bus.publish(API_KEY_ROUTING_KEYS.created, {
        id,
        type: API_KEY_EVENT_TYPES.created,
        occurredAt,
        payload: {
          eventId: id,
          keyId: randomUUID(),
          userId: users[i % users.length]!,
          name: String(Date.now()),
          scopes: ['read:devices'],
          environment: 'live',
          expiresAt: null,
          sequence: i + 1,
          occurredAt,
        },
      }),
    );
  }
  await Promise.all(published);
  const deadline = Date.now() + 120_000;
  while (latencies.length < eventCount && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const seconds = (lastAt - started) / 1000;
  console.log(`webhooks: ${latencies.length}/${eventCount} delivered to ${userCount} endpoints, offered ${rate}/s`);
  console.log(`latency publish -> receiver: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms, max ${sorted.at(-1)} ms`);
  const split = new pg.Client({ connectionString: dbUrl.toString() });
  await split.connect();
  const { rows } = await split.query<{ fan_out: number; send: number; queued: number; post: number; record: number }>(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - (d.body::json->>'timestamp')::timestamptz) * 1000) AS fan_out,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.delivered_at - d.created_at) * 1000) AS send,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM a.started_at - d.created_at) * 1000) AS queued,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY a.duration_ms) AS post,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.delivered_at - a.started_at) * 1000 - a.duration_ms) AS record
     FROM deliveries d JOIN delivery_attempts a ON a.delivery_id = d.id AND a.attempt = d.attempts
     WHERE d.status = 'delivered'`,
  );
  await split.end();
  console.log(
    `where it goes (p50): publish -> delivery row ${Math.round(rows[0]!.fan_out)} ms, row -> delivered ${Math.round(rows[0]!.send)} ms`,
  );
  // The sender's share: waiting for a claim (a free slot), the request, and waiting for the record's commit.
  console.log(
    `the sender (p50): row -> claimed ${Math.round(rows[0]!.queued)} ms, request ${Math.round(rows[0]!.post)} ms, answer -> recorded ${Math.round(rows[0]!.record)} ms`,
  );
  console.log(
    `throughput: ${(latencies.length / seconds).toFixed(0)} deliveries/s over ${seconds.toFixed(1)} s; webhooks CPU ${webhooks.cpuSeconds().toFixed(1)} s`,
  );
} finally {
  await bus.close();
  await webhooks.stop();
  receiver.closeAllConnections();
  receiver.close();
  await admin.query(`DROP DATABASE IF EXISTS "${base}_webhooks" WITH (FORCE)`);
  await admin.end();
  await deleteAmqpObjects({ queues: subscriptionQueueNames(queue, DEFAULT_RETRY_DELAYS_MS), exchanges: [exchange] });
}
