import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { parse } from 'yaml';
import {
  API_KEY_ROUTING_KEYS,
  AUDIT_RECORDED_ROUTING_KEY,
  PLAN_QUOTA_ROUTING_KEY,
  QUOTA_THRESHOLD_ROUTING_KEY,
  SUBSCRIPTION_ROUTING_KEYS,
  USER_DELETED_ROUTING_KEY,
  USER_EVENTS_BINDING,
  SUBSCRIPTION_EVENTS_QUEUE_BINDINGS,
  WEBHOOK_SOURCE_BINDINGS,
} from '@acs/contracts';
import { SUBSCRIPTION_EVENTS_QUEUE } from '../../services/identity/src/consumers/subscription-events-consumer.js';
import { readRepoFile, ROOT } from './components.js';
import { composeEnv, composeVariables, interpolate, loadCompose, rawEnvironment } from './compose-file.js';
import { SECRET_FIXTURES } from './env-check.js';
import { appliedManifests, ofKind } from './k8s-files.js';

// Issue 24.5: compose and k8s make the per-process Redis ACL users and RabbitMQ users of the scripts, and
// each process connects as its own. The Redis side is run for real: docker-compose.yml's redis command
// starts a redis-server of this test's own (the host's binary in place of the image's) from the ACL file it
// writes, each service logs in with its own REDIS_URL from the compose file, and k8s's Job command makes the
// same users with ACL SETUSER on a second server: both end with exactly the users of acl-users.sh.
// (The RabbitMQ definitions both files use are imported into the real broker by libs/bus/test/rabbitmq-users.test.ts.)

const compose = loadCompose();
const variables = composeVariables();
const repoPath = (path: string) => fileURLToPath(new URL(path, ROOT));
const CACHE_USERS = ['gateway', 'keys', 'identity'] as const;
const BUS_USERS = ['identity', 'billing', 'keys', 'device', 'webhooks'] as const;

/** A compose service's environment with the fixtures as values. */
const envOf = (service: string) => composeEnv(compose.services[service]!, variables).values;
/** Mounts as `<host path>:<container path>[:ro]`. */
const mounts = (service: string) =>
  new Map(((compose.services[service] as { volumes?: string[] }).volumes ?? []).map((v) => [v.split(':')[1]!, v.split(':')[0]!]));
const commandOf = (service: string): string => {
  const command = compose.services[service]!.command as string[];
  expect(command.slice(0, 2)).toEqual(['sh', '-c']);
  return command[2]!;
};

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function answering(url: string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  for (let attempt = 0; attempt < 50; attempt++) {
    if (
      await client.connect().then(
        () => true,
        () => false,
      )
    ) {
      client.disconnect();
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no redis-server at ${url}`);
}

/** Rules in a canonical order (the server lists the same rules in the order they were given). */
const sortedRules = (value: unknown): unknown =>
  typeof value === 'string' ? value.split(' ').sort().join(' ') : Array.isArray(value) ? value.map(sortedRules) : value;

/** A user's rules as the server holds them, without its passwords. */
async function rulesOf(admin: Redis, user: string): Promise<unknown> {
  const reply = (await admin.call('ACL', 'GETUSER', user)) as unknown[];
  const fields = new Map<string, unknown>();
  for (let i = 0; i < reply.length; i += 2) fields.set(String(reply[i]), sortedRules(reply[i + 1]));
  fields.delete('passwords');
  return Object.fromEntries(fields);
}

const dir = mkdtempSync(join(tmpdir(), 'acs-broker-users-'));
const servers: ChildProcess[] = [];
const clients: Redis[] = [];
let composePort = 0;
let jobPort = 0;
const adminPassword = SECRET_FIXTURES.REDIS_PASSWORD!;

beforeAll(async () => {
  [composePort, jobPort] = [await freePort(), await freePort()];
  // docker-compose.yml's redis, as its command is written, with this machine's paths and a port of its own.
  const scriptInImage = [...mounts('redis')].find(([, host]) => host === './deploy/redis/acl-users.sh')![0];
  const command = `${commandOf('redis')
    .replaceAll(scriptInImage, repoPath('deploy/redis/acl-users.sh'))
    .replaceAll('/tmp/users.acl', join(dir, 'users.acl'))} --port ${composePort} --bind 127.0.0.1`;
  servers.push(
    spawn('sh', ['-c', interpolate(command, () => undefined)], { env: { PATH: process.env.PATH, ...envOf('redis') }, stdio: 'ignore' }),
  );
  // A server with only an administrator, for the k8s Job.
  servers.push(
    spawn('redis-server', ['--port', String(jobPort), '--bind', '127.0.0.1', '--save', '', '--requirepass', adminPassword], {
      stdio: 'ignore',
    }),
  );
  await answering(`redis://default:${adminPassword}@127.0.0.1:${composePort}`);
  await answering(`redis://default:${adminPassword}@127.0.0.1:${jobPort}`);
});
afterAll(() => {
  for (const client of clients) client.disconnect();
  for (const server of servers) server.kill();
  rmSync(dir, { recursive: true, force: true });
});

const connect = (url: string): Redis => {
  const client = new Redis(url, { maxRetriesPerRequest: 0 });
  clients.push(client);
  return client;
};

describe('docker-compose.yml: Redis ACL users', () => {
  it("each process connects as its own user (acs-<process>) with its own password, never the operator's", () => {
    for (const name of CACHE_USERS) {
      const raw = Object.fromEntries(rawEnvironment(compose.services[name]!)).REDIS_URL!;
      expect(raw).toBe(`redis://acs-${name}:\${REDIS_${name.toUpperCase()}_PASSWORD}@redis:6379`);
      // The redis service hands the same password to the script that makes the user.
      expect(rawEnvironment(compose.services.redis!)).toContainEqual([
        `REDIS_${name.toUpperCase()}_PASSWORD`,
        expect.stringContaining(`\${REDIS_${name.toUpperCase()}_PASSWORD`),
      ]);
    }
  });

  it('the redis command makes exactly the users of acl-users.sh; each service logs in with its URL and is held to its keys', async () => {
    const admin = connect(`redis://default:${adminPassword}@127.0.0.1:${composePort}`);
    expect(((await admin.call('ACL', 'USERS')) as string[]).sort()).toEqual(['acs-gateway', 'acs-identity', 'acs-keys', 'default']);
    const as = Object.fromEntries(
      CACHE_USERS.map((name) => {
        const url = new URL(envOf(name).REDIS_URL!);
        url.host = `127.0.0.1:${composePort}`;
        return [name, connect(url.toString())];
      }),
    ) as Record<(typeof CACHE_USERS)[number], Redis>;
    expect(await as.keys.set('acs:apikey:{acs_live_A}', '{}')).toBe('OK');
    expect(await as.identity.set('acs:authz:{1}', '{}')).toBe('OK');
    expect(await as.gateway.mget('acs:apikey:{acs_live_A}', 'acs:authz:{1}')).toEqual(['{}', '{}']);
    await expect(as.gateway.set('acs:apikey:{acs_live_A}', 'forged')).rejects.toThrow(/NOPERM/);
    // Idempotency-Key records (issue 31): the gateway claims them with SET NX PX GET, and its scripts compare, then
    // SET or DEL them; nobody else touches them.
    const entry = 'acs:idempotency:{key-id}:abc';
    expect(await as.gateway.set(entry, 'R|lease|f', 'PX', 60_000, 'NX', 'GET')).toBeNull();
    expect(await as.gateway.set(entry, 'R|other|f', 'PX', 60_000, 'NX', 'GET')).toBe('R|lease|f');
    const complete = "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'EX', 60) return 1 end return 0";
    expect(await as.gateway.eval(complete, 1, entry, 'R|lease|f', 'D|f|{}')).toBe(1);
    expect(await as.gateway.eval("return redis.call('DEL', KEYS[1])", 1, entry)).toBe(1);
    await expect(as.keys.set('acs:idempotency:{key-id}:abc', 'x')).rejects.toThrow(/NOPERM/);
    await expect(as.identity.set('acs:apikey:{acs_live_B}', 'minted')).rejects.toThrow(/NOPERM/);
    await expect(as.keys.set('acs:authz:{1}', 'x')).rejects.toThrow(/NOPERM/);
  });
});

describe('k8s: Redis ACL users and RabbitMQ users', () => {
  const jobs = new Map(ofKind(appliedManifests(), 'Job').map((job) => [job.metadata.name, job.spec!.template!.spec.containers[0]!]));
  const secret = (parse(readRepoFile('k8s/secret.example.yaml')) as { stringData: Record<string, string> }).stringData;
  const jobEnv = (job: string): Record<string, string> =>
    Object.fromEntries(
      (jobs.get(job)!.env ?? []).map((e) => {
        const key = e.valueFrom?.secretKeyRef?.key ?? e.valueFrom?.configMapKeyRef?.key ?? e.name;
        return [e.name, SECRET_FIXTURES[key] ?? 'acs:'];
      }),
    );

  it("each Deployment's REDIS_URL / AMQP_URL is its own Secret key, whose example names its own user", () => {
    for (const { names, variable, scheme } of [
      { names: CACHE_USERS, variable: 'REDIS_URL', scheme: 'rediss' },
      { names: BUS_USERS, variable: 'AMQP_URL', scheme: 'amqps' },
    ]) {
      for (const name of names) {
        const deployment = ofKind(appliedManifests(), 'Deployment').find((d) => d.metadata.name === name)!;
        const entry = deployment.spec!.template!.spec.containers[0]!.env!.find((e) => e.name === variable)!;
        const key = `${name.toUpperCase()}_${variable}`;
        expect(entry.valueFrom?.secretKeyRef?.key).toBe(key);
        expect(secret[key]).toMatch(new RegExp(`^${scheme}://acs-${name}:<password>@`));
      }
    }
  });

  it('the Jobs run scripts the image holds, with every variable those scripts require', () => {
    const dockerfile = readRepoFile('Dockerfile');
    expect(dockerfile).toMatch(/cp -r --parents [^\n]*\\\n[^\n]* deploy\/redis deploy\/rabbitmq \/out\//);
    expect(jobs.get('redis-acl-users')!.command).toEqual(['sh', '-c', 'sh deploy/redis/acl-users.sh | node deploy/redis/set-users.mjs']);
    expect(jobs.get('rabbitmq-users')!.command).toEqual([
      'sh',
      '-c',
      'sh deploy/rabbitmq/users.sh --definitions | node deploy/rabbitmq/import-definitions.mjs',
    ]);
    for (const [job, script, reader] of [
      ['redis-acl-users', 'deploy/redis/acl-users.sh', 'deploy/redis/set-users.mjs'],
      ['rabbitmq-users', 'deploy/rabbitmq/users.sh', 'deploy/rabbitmq/import-definitions.mjs'],
    ] as const) {
      const given = new Set(Object.keys(jobEnv(job)));
      // need X (acl-users.sh), `: "${X:?` at a line's start (users.sh), process.env.X (the readers).
      const required = [
        ...`${readRepoFile(script)}\n${readRepoFile(reader)}`.matchAll(/need ([A-Z_]+)|^: "\$\{([A-Z_]+):\?|process\.env\.([A-Z_]+)/gm),
      ].map((m) => m[1] ?? m[2] ?? m[3]);
      expect(required.length).toBeGreaterThan(1);
      for (const name of required) expect(`${job}: ${name}${given.has(name!) ? '' : ' (missing)'}`).toBe(`${job}: ${name}`);
    }
  });

  it("the redis-acl-users Job's command makes the same users, with the same rules, as compose's ACL file", async () => {
    const env = jobEnv('redis-acl-users');
    const adminUrl = `redis://default:${adminPassword}@127.0.0.1:${jobPort}`;
    const output = execFileSync('sh', ['-c', jobs.get('redis-acl-users')!.command![2]!], {
      cwd: repoPath('.'),
      env: { PATH: process.env.PATH, ...env, REDIS_PREFIX: 'acs:', REDIS_ADMIN_URL: adminUrl },
      encoding: 'utf8',
    });
    expect(output).toContain('set-users: acs-gateway set');
    const job = connect(adminUrl);
    const composed = connect(`redis://default:${adminPassword}@127.0.0.1:${composePort}`);
    expect(((await job.call('ACL', 'USERS')) as string[]).sort()).toEqual(['acs-gateway', 'acs-identity', 'acs-keys', 'default']);
    for (const name of CACHE_USERS) expect(await rulesOf(job, `acs-${name}`)).toEqual(await rulesOf(composed, `acs-${name}`));
    // And it logs in with the password of the Secret's URL.
    const gateway = connect(`redis://acs-gateway:${env.REDIS_GATEWAY_PASSWORD}@127.0.0.1:${jobPort}`);
    expect(await gateway.ping()).toBe('PONG');
  });
});

describe('docker-compose.yml: RabbitMQ users', () => {
  it('each service connects as its own user with its own password; the broker loads those users at boot', () => {
    for (const name of BUS_USERS) {
      const raw = Object.fromEntries(rawEnvironment(compose.services[name]!)).AMQP_URL!;
      expect(raw).toBe(`amqp://acs-${name}:\${RABBITMQ_${name.toUpperCase()}_PASSWORD}@rabbitmq:5672`);
      expect(rawEnvironment(compose.services.rabbitmq!)).toContainEqual([
        `RABBITMQ_${name.toUpperCase()}_PASSWORD`,
        expect.stringContaining(`\${RABBITMQ_${name.toUpperCase()}_PASSWORD`),
      ]);
    }
    // The command writes the definitions where definitions.conf (mounted into conf.d) loads them from.
    const volumes = mounts('rabbitmq');
    const script = [...volumes].find(([, host]) => host === './deploy/rabbitmq/users.sh')![0];
    const conf = [...volumes].find(([, host]) => host === './deploy/rabbitmq/definitions.conf')![0];
    expect(conf).toMatch(/^\/etc\/rabbitmq\/conf\.d\/[^/]+\.conf$/);
    const loads = /^load_definitions = (\S+)$/m.exec(readRepoFile('deploy/rabbitmq/definitions.conf'))![1]!;
    expect(commandOf('rabbitmq')).toBe(`sh ${script} --definitions >${loads} && exec docker-entrypoint.sh rabbitmq-server`);
    // The document it writes there, with compose's environment: the administrator and the five users, and
    // the publishers' topic permissions on the exchange the services use (their BUS_EXCHANGE default).
    const document = JSON.parse(
      execFileSync('sh', [repoPath('deploy/rabbitmq/users.sh'), '--definitions'], {
        env: { PATH: process.env.PATH, ...envOf('rabbitmq') },
        encoding: 'utf8',
      }),
    );
    expect(document.users.map((u: { name: string; tags: string }) => `${u.name}:${u.tags}`)).toEqual([
      'acs:administrator',
      'acs-billing:',
      'acs-device:',
      'acs-identity:',
      'acs-keys:',
      'acs-webhooks:',
    ]);
    expect(document.topic_permissions.map((p: { user: string; exchange: string }) => `${p.user} ${p.exchange}`)).toEqual([
      'acs-billing acs.events',
      'acs-identity acs.events',
      'acs-keys acs.events',
    ]);
    for (const name of BUS_USERS) expect(envOf(name).BUS_EXCHANGE ?? 'acs.events').toBe('acs.events');
  });
});

describe('deploy/rabbitmq/users.sh: the routing keys each publisher may publish', () => {
  /** The routing keys each service's outboxes publish (libs/contracts); audit.recorded is billing's and keys'. */
  const PUBLISHED = {
    'acs-billing': [...Object.values(SUBSCRIPTION_ROUTING_KEYS), PLAN_QUOTA_ROUTING_KEY, AUDIT_RECORDED_ROUTING_KEY],
    'acs-identity': [USER_DELETED_ROUTING_KEY],
    'acs-keys': [...Object.values(API_KEY_ROUTING_KEYS), QUOTA_THRESHOLD_ROUTING_KEY, AUDIT_RECORDED_ROUTING_KEY],
  };
  const ALL = [...new Set(Object.values(PUBLISHED).flat())];

  it("each publisher's topic permission takes every key it publishes and none that only another publishes", () => {
    const document = JSON.parse(
      execFileSync('sh', [repoPath('deploy/rabbitmq/users.sh'), '--definitions'], {
        env: { PATH: process.env.PATH, ...envOf('rabbitmq') },
        encoding: 'utf8',
      }),
    );
    const patterns = Object.fromEntries(document.topic_permissions.map((p: { user: string; write: string }) => [p.user, p.write]));
    expect(Object.keys(patterns).sort()).toEqual(Object.keys(PUBLISHED).sort());
    // RabbitMQ matches the pattern anywhere in the key (Erlang's re, PCRE): the same as RegExp.test for these.
    for (const [user, own] of Object.entries(PUBLISHED)) {
      const pattern = new RegExp(patterns[user]);
      expect(
        `${user}: ${ALL.filter((key) => pattern.test(key))
          .sort()
          .join(' ')}`,
      ).toBe(`${user}: ${[...own].sort().join(' ')}`);
    }
  });
});

describe("deploy/rabbitmq/users.sh: each consumer's queue and bindings, declared before the service starts", () => {
  /**
   * Each consumer's queue (the script's defaults, the services' own) and the patterns its service subscribes
   * with, from the code: a new pattern there must be in the definitions too, or its events published before
   * the service's first start are lost.
   */
  const SUBSCRIBED: Record<string, readonly string[]> = {
    'billing.user-events': [USER_EVENTS_BINDING],
    'device.user-events': [USER_EVENTS_BINDING],
    [SUBSCRIPTION_EVENTS_QUEUE]: SUBSCRIPTION_EVENTS_QUEUE_BINDINGS,
    'keys.user-events': [USER_EVENTS_BINDING],
    'webhooks.events': WEBHOOK_SOURCE_BINDINGS,
  };

  it("the definitions declare the events exchange and each consumer's queue as libs/bus does, bound with exactly its service's patterns", () => {
    const document = JSON.parse(
      execFileSync('sh', [repoPath('deploy/rabbitmq/users.sh'), '--definitions'], {
        env: { PATH: process.env.PATH, ...envOf('rabbitmq') },
        encoding: 'utf8',
      }),
    ) as {
      exchanges: unknown[];
      queues: { name: string }[];
      bindings: { source: string; destination: string; destination_type: string; routing_key: string }[];
    };
    // libs/bus: assertExchange(exchange, 'topic', { durable: true }), assertQueue(queue, { durable: true }).
    expect(document.exchanges).toEqual([
      { name: 'acs.events', vhost: '/', type: 'topic', durable: true, auto_delete: false, internal: false, arguments: {} },
    ]);
    expect(document.queues).toEqual(
      Object.keys(SUBSCRIBED).map((name) => ({ name, vhost: '/', durable: true, auto_delete: false, arguments: {} })),
    );
    for (const binding of document.bindings) {
      expect(binding).toMatchObject({ source: 'acs.events', vhost: '/', destination_type: 'queue', arguments: {} });
    }
    const bound = (queue: string) => document.bindings.filter((binding) => binding.destination === queue).map((b) => b.routing_key);
    expect(document.bindings.length).toBe(Object.values(SUBSCRIBED).flat().length);
    for (const [queue, patterns] of Object.entries(SUBSCRIBED))
      expect(`${queue}: ${bound(queue).sort()}`).toBe(`${queue}: ${[...patterns].sort()}`);
  });
});
