#!/usr/bin/env node
// npm run fuzz -- [--runs N] [--seed S]: the fuzz suite of `npm test` (test/fuzz), for as long as you like.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const HELP = `Usage: npm run fuzz -- [--runs N] [--seed S]

Fuzzes every operation of the served /openapi.json against the whole system on PostgreSQL, Redis
and RabbitMQ (DATABASE_URL, REDIS_URL, AMQP_URL; defaults: the local servers), as npm test does,
with more runs or another seed. Invariants: never a 5xx, the error shape on every 4xx, no stack
trace or SQL text, only statuses and bodies the document declares, /readyz 200 afterwards.

  --runs N   generated requests per operation (npm test: 150)
  --seed S   fast-check seed (npm test: 20261125; each run prints its seed, so a failure can be replayed)
  --help     this text`;

let values;
try {
  ({ values } = parseArgs({ options: { runs: { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean' } } }));
} catch (err) {
  console.error(`${err.message}\n\n${HELP}`);
  process.exit(2);
}
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
for (const name of ['runs', 'seed']) {
  if (values[name] !== undefined && !/^[0-9]{1,10}$/.test(values[name])) {
    console.error(`--${name} must be a whole number, got ${values[name]}\n\n${HELP}`);
    process.exit(2);
  }
}
const env = { ...process.env, ...(values.runs ? { FUZZ_RUNS: values.runs } : {}), ...(values.seed ? { FUZZ_SEED: values.seed } : {}) };
const jest = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--runInBand', '--testTimeout', '86400000', 'test/fuzz/'],
  { env, stdio: 'inherit' },
);
process.exit(jest.status ?? 1);
