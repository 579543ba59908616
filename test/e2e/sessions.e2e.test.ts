import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisCache, type Cache } from '@acs/cache';
import { authzCacheKey, sessionListSchema, sessionViewSchema } from '@acs/contracts';
import { gatewayConfigSchema, startGateway, type Gateway } from '@acs/gateway';
import { createLogger } from '@acs/logger';
import { testServerUrl } from '@acs/testing';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';
import { PASSWORD, appKey, bearer, json, newUser, type Auth } from './actors.js';

// Issue 32, item 1: every sign-in is a session; ending one refuses its token on the next request at
// every gateway replica, whatever its exp, from the authorization record the gateway reads anyway.

let sut: SystemUnderTest;
let app: Auth;
let dashboard: Auth;
let second: Gateway;
let secondCache: Cache;

beforeAll(async () => {
  sut = await startSystemUnderTest();
  app = await appKey(sut, ['auth:register', 'auth:login']);
  dashboard = await appKey(sut, ['system:full-access', 'auth:login']);
  // A second replica on the same Redis and services, as a scaled deployment runs it.
  secondCache = createRedisCache({ url: testServerUrl('REDIS_URL'), keyPrefix: sut.redisPrefix });
  second = await startGateway(
    gatewayConfigSchema.parse({
      PORT: '0',
      HOST: '127.0.0.1',
      METRICS_PORT: 'off',
      INTERNAL_SECRET_KEYS: sut.system.internalKeys.keys,
      INTERNAL_SECRET_IDENTITY: sut.system.internalKeys.identity,
      INTERNAL_SECRET_DEVICE: sut.system.internalKeys.device,
      DEVICE_URL: sut.system.device.server.url,
      KEYS_URL: sut.system.keys.server.url,
      IDENTITY_URL: sut.system.identity.server.url,
    }),
    createLogger({ name: 'second-gateway', level: 'silent' }),
    secondCache,
  );
}, 60_000);
afterAll(async () => {
  await second?.close();
  await secondCache?.close();
  await sut?.stop();
});

const claimsOf = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

/** A sign-in from a named browser. */
async function signIn(email: string, userAgent: string): Promise<string> {
  const res = await sut.call('POST', '/api/Users/Login', app, {
    ...json({ email, password: PASSWORD }),
    headers: { 'content-type': 'application/json', 'user-agent': userAgent },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI_IOS =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

const listVia = (url: string, token: string) =>
  fetch(`${url}/api/Sessions`, bearer(token, { headers: { 'x-api-key': dashboard.key, 'x-api-secret': dashboard.secret } }));
const devicesVia = (url: string, token: string) =>
  fetch(`${url}/api/Devices`, bearer(token, { headers: { 'x-api-key': dashboard.key, 'x-api-secret': dashboard.secret } }));

async function expectSessionEnded(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  expect(await res.json()).toMatchObject({ error: 'Session ended', code: 'session_ended', hint: expect.any(String) });
}

describe('sessions', () => {
  it('each sign-in is a session named by sid (the spec claims unchanged); listed with its device, the current one marked', async () => {
    const user = await newUser(sut, app);
    const laptop = await signIn(user.email, FIREFOX);
    const phone = await signIn(user.email, SAFARI_IOS);
    const claims = claimsOf(laptop);
    expect(claims).toMatchObject({ sub: String(user.id), email: user.email, role: 1, plan_type: 0 });
    expect(claims.sid).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(claimsOf(phone).sid).not.toBe(claims.sid);

    const res = await listVia(sut.url, laptop);
    expect(res.status).toBe(200);
    const { items } = sessionListSchema.parse(await res.json());
    // newUser signed in once already: three live sessions, newest first.
    expect(items).toHaveLength(3);
    expect(items[0]).toMatchObject({ id: claimsOf(phone).sid, device: 'Safari on iOS', current: false, endedAt: null });
    expect(items[1]).toMatchObject({ id: claims.sid, device: 'Firefox on Linux', current: true, address: expect.any(String) });
    expect(items.filter((item) => item.current)).toHaveLength(1);
  });

  it('an ended session is refused at the next request on both gateways (401 session_ended), whatever its exp; the others keep working', async () => {
    const user = await newUser(sut, app);
    const laptop = await signIn(user.email, FIREFOX);
    const phone = await signIn(user.email, SAFARI_IOS);
    // Both replicas have seen (and remembered) the phone's token before it is ended.
    expect((await devicesVia(sut.url, phone)).status).toBe(200);
    expect((await devicesVia(second.server.url, phone)).status).toBe(200);

    const phoneSid = claimsOf(phone).sid as string;
    const ended = await fetch(
      `${second.server.url}/api/Sessions/${phoneSid}`,
      bearer(laptop, { method: 'DELETE', headers: { 'x-api-key': dashboard.key, 'x-api-secret': dashboard.secret } }),
    );
    expect(ended.status).toBe(200);
    expect(sessionViewSchema.parse(await ended.json())).toMatchObject({ id: phoneSid, endedAt: expect.any(String) });

    await expectSessionEnded(await devicesVia(sut.url, phone));
    await expectSessionEnded(await devicesVia(second.server.url, phone));
    expect(claimsOf(phone).exp as number).toBeGreaterThan(Date.now() / 1000 + 60);
    expect((await devicesVia(sut.url, laptop)).status).toBe(200);
    // Ending it again answers the same.
    const again = await fetch(
      `${sut.url}/api/Sessions/${phoneSid}`,
      bearer(laptop, { method: 'DELETE', headers: { 'x-api-key': dashboard.key, 'x-api-secret': dashboard.secret } }),
    );
    expect(again.status).toBe(200);
    const listed = sessionListSchema.parse(await (await listVia(sut.url, laptop)).json());
    expect(listed.items.map((item) => item.id)).not.toContain(phoneSid);
  });

  it('ending all others keeps the calling session; the record carries only ended ids and stays small', async () => {
    const user = await newUser(sut, app);
    const others = [await signIn(user.email, SAFARI_IOS), await signIn(user.email, SAFARI_IOS)];
    const keep = await signIn(user.email, FIREFOX);
    const res = await sut.call('POST', '/api/Sessions/EndOthers', dashboard, bearer(keep));
    expect(res.status).toBe(200);
    // newUser's own sign-in and the two phones.
    expect(await res.json()).toEqual({ ended: 3 });
    for (const token of others) {
      await expectSessionEnded(await devicesVia(sut.url, token));
      await expectSessionEnded(await devicesVia(second.server.url, token));
    }
    expect((await devicesVia(second.server.url, keep)).status).toBe(200);
    const listed = sessionListSchema.parse(await (await listVia(sut.url, keep)).json());
    expect(listed.items.map((item) => item.id)).toEqual([claimsOf(keep).sid]);

    const raw = await sut.system.cache.get(authzCacheKey(user.id));
    const record = JSON.parse(raw!.slice(raw!.indexOf('|') + 1)) as { endedSessions: string[] };
    expect(record.endedSessions).toHaveLength(3);
    // What the ended sessions add to the record: the field's name and brackets, and per session its
    // 12-character id, quoted, and a comma (15 bytes); the rest (role, trial, quota, ...) is as before.
    const { endedSessions: _ended, ...without } = record;
    const added = Buffer.byteLength(raw!) - Buffer.byteLength(raw!.slice(0, raw!.indexOf('|') + 1) + JSON.stringify(without));
    expect(added).toBeLessThanOrEqual('"endedSessions":[],'.length + 15 * 3);
  });

  it('last seen moves when a gateway sees the session in use, at most every few minutes, not per request', async () => {
    const user = await newUser(sut, app);
    const token = await signIn(user.email, FIREFOX);
    const sid = claimsOf(token).sid as string;
    const db = sut.system.identity.deps.db;
    await db.query("UPDATE sessions SET last_seen_at = now() - interval '10 minutes' WHERE id = $1", [sid]);
    const lastSeen = async () =>
      (await db.query<{ t: Date }>('SELECT last_seen_at AS t FROM sessions WHERE id = $1', [sid])).rows[0]!.t.getTime();
    const before = await lastSeen();
    // The second replica has not reported this session yet: its first request does (off the request path).
    expect((await devicesVia(second.server.url, token)).status).toBe(200);
    const deadline = Date.now() + 5000;
    while ((await lastSeen()) === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const moved = await lastSeen();
    expect(moved).toBeGreaterThan(before + 9 * 60 * 1000);
    // More requests within the few minutes write nothing.
    await db.query("UPDATE sessions SET last_seen_at = now() - interval '10 minutes' WHERE id = $1", [sid]);
    const reset = await lastSeen();
    for (let i = 0; i < 3; i++) expect((await devicesVia(second.server.url, token)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await lastSeen()).toBe(reset);
  });

  it("another user's session is 404, a malformed id 404; a token without a session can still end nothing of others", async () => {
    const alice = await newUser(sut, app);
    const bob = await newUser(sut, app);
    const bobToken = await signIn(bob.email, FIREFOX);
    for (const id of [claimsOf(bobToken).sid as string, 'not-a-session', '%27--']) {
      const res = await sut.call('DELETE', `/api/Sessions/${id}`, dashboard, bearer(alice.token));
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'session_not_found' });
    }
    expect((await devicesVia(sut.url, bobToken)).status).toBe(200);
    // Sessions need the dashboard's key: an app key with auth:login only is refused by scope.
    expect((await sut.call('GET', '/api/Sessions', app, bearer(alice.token))).status).toBe(403);
  });
});
