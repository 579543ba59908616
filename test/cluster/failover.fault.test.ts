import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKeyCacheKey, apiKeyCreatedResponseSchema } from '@acs/contracts';
import { createApiKey } from '@acs/keys-service';
import { ensureTestCluster, type ClusterNode } from '@acs/testing';
import { appKey, bearer, json, newUser, type Auth, type User } from '../e2e/actors.js';
import { startSystemUnderTest, type SystemUnderTest } from '../e2e/system-harness.js';
import { clusterView, onNode, processIdOf, roleOf, sleep, type ClusterView } from './cluster-system.js';

// Fault injection, issue 25 item 3: a primary of the Redis Cluster dies (SIGKILL, as a crash) while
// the system serves requests (a key without limits and one with) and keys change. Its replica takes over (cluster-node-timeout 2 s).
// During the failover a request is answered 503 with Retry-After at worst; after it, never 5xx;
// no key change is lost: a key revoked just before the crash, and keys created and revoked during
// the failover, are seen as such afterwards, in the cluster's records too. The killed node is then
// started again (scripts/start-redis-cluster.sh) and rejoins as a replica, so later tests find a
// healthy cluster. The figures measured are printed.

interface Answer {
  /** When the request was sent. */
  at: number;
  ms: number;
  status: number;
  retryAfter: string | null;
}

let sut: SystemUnderTest;
let view: ClusterView;
let dashboard: Auth;
let reader: Auth;
/** A key with a rate limit it never reaches: its requests run the limit script (or count in process). */
let limitedReader: Auth;
let user: User;

beforeAll(async () => {
  await ensureTestCluster();
  sut = await startSystemUnderTest({ KEYS_PER_USER: '100' }, { redisCluster: true });
  view = clusterView();
  dashboard = await appKey(sut, ['system:full-access']);
  const app = await appKey(sut, ['auth:register', 'auth:login', 'read:devices']);
  reader = await appKey(sut, ['read:devices']);
  const limited = await createApiKey(sut.system.keys.deps, {
    name: 'failover limited',
    scopes: ['read:devices'],
    ownerUserId: null,
    environment: 'test',
    rateLimits: [{ limit: 100_000, windowSeconds: 3600 }],
  });
  limitedReader = { key: limited.apiKey.key, secret: limited.secret };
  user = await newUser(sut, app);
}, 120_000);

afterAll(async () => {
  view?.close();
  await sut?.stop();
  // Whatever happened above, leave a healthy cluster behind.
  await ensureTestCluster();
}, 120_000);

const recordKey = (key: string): string => `${sut.redisPrefix}${apiKeyCacheKey(key)}`;

async function createUserKey(): Promise<{ id: string; auth: Auth; answers: Answer[] }> {
  const answers: Answer[] = [];
  for (;;) {
    const at = Date.now();
    const res = await sut.call('POST', '/api/ApiKeys', dashboard, bearer(user.token, json({ name: 'failover', scopes: 'read:devices' })));
    answers.push({ at, ms: Date.now() - at, status: res.status, retryAfter: res.headers.get('retry-after') });
    if (res.status === 201) {
      const created = apiKeyCreatedResponseSchema.parse(await res.json());
      return { id: created.id, auth: { key: created.key, secret: created.secret }, answers };
    }
    await res.arrayBuffer();
    if (res.status !== 503) throw new Error(`creating a key answered ${res.status}`);
    await sleep(100);
  }
}

async function revokeUserKey(id: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (;;) {
    const at = Date.now();
    const res = await sut.call('DELETE', `/api/ApiKeys/${id}`, dashboard, bearer(user.token));
    await res.arrayBuffer();
    answers.push({ at, ms: Date.now() - at, status: res.status, retryAfter: res.headers.get('retry-after') });
    if (res.status === 200) return answers;
    if (res.status !== 503) throw new Error(`revoking a key answered ${res.status}`);
    await sleep(100);
  }
}

/** Keys (made through the gateway) whose records live on `primary`, so its death concerns them. */
async function keysOn(primary: ClusterNode, count: number): Promise<{ id: string; auth: Auth }[]> {
  const found: { id: string; auth: Auth }[] = [];
  while (found.length < count) {
    const key = await createUserKey();
    const holder = await view.primaryOf(recordKey(key.auth.key));
    if (holder.port === primary.port && holder.host === primary.host) found.push(key);
  }
  return found;
}

/** When the node reports itself primary with the cluster's state ok (0 when not within 20 s). */
async function promotionOf(node: ClusterNode): Promise<number> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(50)) {
    const promoted = await roleOf(node).then(
      (r) => r.role === 'master',
      () => false,
    );
    if (promoted && String(await onNode(node, (client) => client.cluster('INFO')).catch(() => '')).includes('cluster_state:ok'))
      return Date.now();
  }
  return 0;
}

describe('a primary of the Redis Cluster dies under load', () => {
  it('its replica takes over; 503 with Retry-After at worst meanwhile, never 5xx after; no key change lost', async () => {
    // The victim: the primary holding the reader's record, the key the load uses.
    const victim = await view.primaryOf(recordKey(reader.key));
    const replicas = (await onNode(victim, (client) => client.role())) as [string, number, [string, string, string][]];
    const successor: ClusterNode = { host: replicas[2][0]![0], port: Number(replicas[2][0]![1]) };
    const [revokedBefore, revokedDuring] = await keysOn(victim, 2);
    expect((await sut.call('GET', '/api/Dac?pageSize=1', revokedDuring!.auth)).status).toBe(200);
    expect((await revokeUserKey(revokedBefore!.id)).at(-1)?.status).toBe(200);

    const load: Answer[] = [];
    let loading = true;
    const worker = async (caller: Auth): Promise<void> => {
      while (loading) {
        const at = Date.now();
        const res = await sut.call('GET', '/api/Dac?pageSize=1', caller);
        await res.arrayBuffer();
        load.push({ at, ms: Date.now() - at, status: res.status, retryAfter: res.headers.get('retry-after') });
      }
    };
    const workers = [reader, reader, reader, limitedReader].map(worker);
    let killedAt = 0;
    let promotedAt = 0;
    let created: { id: string; auth: Auth; answers: Answer[] }[] = [];
    let changeAnswers: Answer[] = [];
    try {
      await sleep(500);
      const pid = await processIdOf(victim);
      killedAt = Date.now();
      process.kill(pid, 'SIGKILL');

      // Meanwhile keys change, each retried on 503 until it is answered; and the successor is watched.
      const [revoking, ...creating] = await Promise.all([
        revokeUserKey(revokedDuring!.id),
        createUserKey(),
        createUserKey(),
        createUserKey(),
        promotionOf(successor).then((at) => {
          promotedAt = at;
          return [];
        }),
      ]);
      created = creating.filter((c): c is { id: string; auth: Auth; answers: Answer[] } => 'id' in c);
      changeAnswers = [...(revoking as Answer[]), ...created.flatMap((c) => c.answers)];
      expect(promotedAt).toBeGreaterThan(0);
      await sleep(3_000);
    } finally {
      loading = false;
      await Promise.all(workers);
    }

    const all = [...load, ...changeAnswers];
    const unavailable = all.filter((a) => a.status === 503);
    const figures = {
      killToPromotedMs: promotedAt - killedAt,
      requests: load.length,
      slowestRequestMs: Math.max(...all.map((a) => a.ms)),
      // Reads that took more than 250 ms: sent from, and answered until (ms after the kill).
      slowReadsMs: [
        Math.min(...load.filter((a) => a.ms > 250).map((a) => a.at - killedAt)),
        Math.max(...load.filter((a) => a.ms > 250).map((a) => a.at + a.ms - killedAt)),
      ],
      readsAfterPromotion: {
        count: load.filter((a) => a.at > promotedAt).length,
        slowestMs: Math.max(0, ...load.filter((a) => a.at > promotedAt).map((a) => a.ms)),
      },
      statuses: Object.fromEntries([...new Set(all.map((a) => a.status))].map((s) => [s, all.filter((a) => a.status === s).length])),
      first503AfterKillMs: unavailable.length > 0 ? Math.min(...unavailable.map((a) => a.at)) - killedAt : null,
      last503AfterKillMs: unavailable.length > 0 ? Math.max(...unavailable.map((a) => a.at + a.ms)) - killedAt : null,
    };
    console.log(`failover figures: ${JSON.stringify(figures)}`);

    // 503 with Retry-After at worst, during the failover; nothing else went wrong, then or after.
    expect(all.filter((a) => a.status !== 200 && a.status !== 201 && a.status !== 503)).toEqual([]);
    expect(unavailable.every((a) => Number(a.retryAfter) > 0)).toBe(true);
    expect(all.filter((a) => a.status >= 500 && a.at > promotedAt)).toEqual([]);
    expect(load.filter((a) => a.at > promotedAt).length).toBeGreaterThan(10);

    // No change lost: on the gateway, and in the records the cluster now serves from the successor.
    expect((await sut.call('GET', '/api/Dac?pageSize=1', revokedBefore!.auth)).status).toBe(401);
    expect((await sut.call('GET', '/api/Dac?pageSize=1', revokedDuring!.auth)).status).toBe(401);
    for (const key of created) expect((await sut.call('GET', '/api/Dac?pageSize=1', key.auth)).status).toBe(200);
    for (const revoked of [revokedBefore!, revokedDuring!]) {
      const raw = await view.raw.get(recordKey(revoked.auth.key));
      // Absent is fine (the next request refills it from the database); present must say revoked.
      if (raw !== null) expect(JSON.parse(raw.slice(raw.indexOf('|') + 1))).toMatchObject({ revoked: true });
    }

    // The killed node comes back and rejoins as a replica of the node that took over.
    await ensureTestCluster();
    expect(await roleOf(victim)).toEqual({ role: 'slave', primary: successor });
  }, 120_000);
});
