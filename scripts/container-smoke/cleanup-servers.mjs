// Removes what one smoke run left on the shared servers (scripts/container-smoke.sh): its
// databases (<run id>_keys, ...), its Redis keys (prefix <run id>:), its RabbitMQ queues
// (<run id>.*) and exchange (<run id>.events). Touches nothing else: names are matched on the
// run id, which no one else uses.
//   node scripts/container-smoke/cleanup-servers.mjs <run id>
// Server URLs: DATABASE_URL, REDIS_URL, AMQP_URL (the CI defaults when unset).
import { execFileSync } from 'node:child_process';
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import pg from 'pg';

const runId = process.argv[2];
if (!runId || !/^acs_smoke_[a-z0-9_]+$/.test(runId)) {
  console.log('usage: node scripts/container-smoke/cleanup-servers.mjs acs_smoke_<id>');
  process.exit(process.argv.includes('--help') ? 0 : 2);
}
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const amqpUrl = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const say = (what) => console.log(`cleanup: ${what}`);

async function dropDatabases() {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [`${runId}_`]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname.replaceAll('"', '""')}" WITH (FORCE)`);
    say(`dropped ${rows.length} databases`);
  } finally {
    await client.end();
  }
}

async function deleteRedisKeys() {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  let removed = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${runId}:*`, 'COUNT', 1000);
      if (keys.length) removed += await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    say(`deleted ${removed} Redis keys`);
  } finally {
    redis.disconnect();
  }
}

function runQueues() {
  try {
    return execFileSync('rabbitmqctl', ['-q', 'list_queues', 'name'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .map((l) => l.trim())
      .filter((name) => name.startsWith(`${runId}.`));
  } catch {
    // No rabbitmqctl here: the queues this run's consumers declare (identity's, the user-events queues of
    // keys, billing and device, and webhooks'), each with its dead-letter and retry queues (libs/bus's defaults).
    const queues = ['subscription-events', 'keys-user-events', 'billing-user-events', 'device-user-events', 'webhooks-events'].map(
      (q) => `${runId}.${q}`,
    );
    // (Their own exchanges, <queue>.x, are auto-delete: they go with the last of these.)
    return queues.flatMap((q) => [q, `${q}.dlq`, ...[1000, 5000, 30000, 120000].map((ms) => `${q}.retry.${ms}ms`)]);
  }
}

async function deleteBusObjects() {
  const connection = await amqp.connect(amqpUrl);
  try {
    const channel = await connection.createChannel();
    const queues = runQueues();
    for (const queue of queues) await channel.deleteQueue(queue);
    await channel.deleteExchange(`${runId}.events`);
    say(`deleted ${queues.length} queues and the exchange ${runId}.events`);
  } finally {
    await connection.close();
  }
}

let failed = false;
for (const step of [dropDatabases, deleteRedisKeys, deleteBusObjects]) {
  await step().catch((err) => {
    failed = true;
    console.error(`cleanup: ${step.name}: ${err.message}`);
  });
}
process.exit(failed ? 1 : 0);
