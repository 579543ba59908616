import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { INT4_MAX } from '@acs/contracts';
import { NOT_UTF8_MESSAGE, UNSTORABLE_TEXT_MESSAGE } from '@acs/http';
import { setUserRole } from '@acs/identity-service';
import { startSystemUnderTest, type SystemUnderTest } from './system-harness.js';
import { PASSWORD, appKey, bearer, json, newUser, type Auth, type User } from './actors.js';

// Issue 13, items 1-3, through the whole system: chunked bodies on every route with a body, text
// PostgreSQL cannot store, and ids no row can have. Never a 5xx, always the error shape.
let sut: SystemUnderTest;
let app: Auth; // auth:register, auth:login, read:devices, register:device, write:devices
let dashboard: Auth; // system:full-access
let admin: User;
let user: User;

beforeAll(async () => {
  sut = await startSystemUnderTest();
  app = await appKey(sut, ['auth:register', 'auth:login', 'read:devices', 'register:device', 'write:devices']);
  dashboard = await appKey(sut, ['system:full-access']);
  admin = await newUser(sut, app);
  await setUserRole(sut.system.identity.deps, admin.email, 2);
  user = await newUser(sut, app); // on a trial: role 1, may manage keys
}, 60_000);
afterAll(async () => sut?.stop());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** A request whose body goes out in pieces with Transfer-Encoding: chunked and no Content-Length, as streaming clients send it. */
function chunked(method: string, path: string, auth: Auth, pieces: string[], token?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      'x-api-key': auth.key,
      'x-api-secret': auth.secret,
      'content-type': 'application/json',
      'transfer-encoding': 'chunked',
    };
    if (token) headers.authorization = `Bearer ${token}`;
    const req = request(sut.url + path, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }),
      );
    });
    req.on('error', reject);
    for (const piece of pieces) req.write(piece);
    req.end();
  });
}

/** Splits a JSON body into three chunks, so the service really reads it in pieces. */
const inPieces = (body: unknown): string[] => {
  const text = JSON.stringify(body);
  const third = Math.ceil(text.length / 3);
  return [text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)];
};

const serial = () => `SN-${randomBytes(6).toString('hex')}`;
const brand = () => `Brand${randomBytes(4).toString('hex')}`;
const speaker = (b: string, model: string) => ({
  type: 'speaker',
  brand: b,
  model,
  price: 499,
  releaseYear: 2024,
  specs: { sensitivityDb: 87, impedanceOhms: 8, frequencyLowHz: 45, frequencyHighHz: 25000, design: 'bookshelf' },
});

function expectErrorShape(answer: { status: number; body: Record<string, unknown> }, status: number): void {
  expect(answer.status).toBe(status);
  expect(answer.body).toMatchObject({ error: expect.any(String), message: expect.any(String), requestId: expect.any(String) });
  expect(JSON.stringify(answer.body)).not.toMatch(/SELECT|INSERT|UPDATE|stack|at .*\.js/);
}

describe('chunked request bodies on every route with a body (item 1)', () => {
  it('POST /api/Users/Register and /api/Users/Login', async () => {
    const email = `chunked-${randomBytes(5).toString('hex')}@example.com`;
    const registered = await chunked(
      'POST',
      '/api/Users/Register',
      app,
      inPieces({ email, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' }),
    );
    expect(registered.status).toBe(201);
    const login = await chunked('POST', '/api/Users/Login', app, inPieces({ email, password: PASSWORD }));
    expect(login.status).toBe(200);
    expect(login.body.token).toEqual(expect.any(String));
  });

  it('POST /api/Devices/Register', async () => {
    const res = await chunked(
      'POST',
      '/api/Devices/Register',
      app,
      inPieces({ serialNumber: serial(), name: 'Desk DAC', catalogEntryId: 1 }),
      user.token,
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ catalogEntryId: 1 });
  });

  it('POST /api/Dac/import, also with ?dryRun=true', async () => {
    const b = brand();
    const dry = await chunked('POST', '/api/Dac/import?dryRun=true', app, inPieces([speaker(b, 'One')]), admin.token);
    expect(dry.status).toBe(200);
    const real = await chunked('POST', '/api/Dac/import', app, inPieces({ items: [speaker(b, 'One'), speaker(b, 'Two')] }), admin.token);
    expect(real.status).toBe(200);
    expect(real.body).toMatchObject({ inserted: 2, total: 2 });
  });

  it('POST, PATCH and DELETE /api/ApiKeys(/{id})', async () => {
    const created = await chunked('POST', '/api/ApiKeys', dashboard, inPieces({ name: 'chunked', scopes: 'read:devices' }), user.token);
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const changed = await chunked('PATCH', `/api/ApiKeys/${id}`, dashboard, inPieces({ scopes: 'read:devices auth:login' }), user.token);
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ scopes: 'read:devices auth:login' });
    // A body on DELETE means nothing to the service, but must not break the request either.
    const revoked = await chunked('DELETE', `/api/ApiKeys/${id}`, dashboard, ['{}'], user.token);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
  });

  it('POST and DELETE /api/Subscriptions(/{id})', async () => {
    const subscriber = await newUser(sut, app);
    const created = await chunked('POST', '/api/Subscriptions', dashboard, inPieces({ planId: 'monthly' }), subscriber.token);
    expect(created.status).toBe(201);
    const canceled = await chunked('DELETE', `/api/Subscriptions/${created.body.id as string}`, dashboard, ['{}'], subscriber.token);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ cancelAtPeriodEnd: true });
  });

  it("the service's own 64 KiB limit holds for a chunked body: 413 in the error shape", async () => {
    const big = JSON.stringify({ email: 'x@example.com', password: PASSWORD, firstName: 'a'.repeat(3 * 1024 * 1024), lastName: 'b' });
    const pieces = Array.from({ length: Math.ceil(big.length / 8192) }, (_, i) => big.slice(i * 8192, (i + 1) * 8192));
    const res = await chunked('POST', '/api/Users/Register', app, pieces);
    expectErrorShape(res, 413);
    expect(res.body.error).toBe('Payload too large');
  });
});

describe('text PostgreSQL cannot store gives 400 naming the field (item 2)', () => {
  const expectField = (answer: { status: number; body: Record<string, unknown> }, path: string): void => {
    expectErrorShape(answer, 400);
    expect(answer.body.details).toEqual(expect.arrayContaining([{ path, message: UNSTORABLE_TEXT_MESSAGE }]));
  };
  const call = async (
    method: string,
    path: string,
    auth: Auth,
    init: RequestInit,
  ): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await sut.call(method, path, auth, init);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('a NUL in a query parameter: GET /api/Dac?brand=a%00b', async () => {
    expectField(await call('GET', '/api/Dac?brand=a%00b', app, {}), 'query.brand');
  });

  it('bytes that are not UTF-8, in a query escape or a body (Latin-1 "Röhre"), are 400 naming the field; nothing is written', async () => {
    const query = await call('GET', '/api/Dac?q=R%F6hre', app, {});
    expectErrorShape(query, 400);
    expect(query.body.details).toEqual([{ path: 'query.q', message: NOT_UTF8_MESSAGE }]);
    const b = brand();
    const latin1 = Buffer.from(JSON.stringify([speaker(b, 'Röhre')]), 'latin1');
    const body = await call(
      'POST',
      '/api/Dac/import',
      app,
      bearer(admin.token, { headers: { 'content-type': 'application/json' }, body: latin1 }),
    );
    expectErrorShape(body, 400);
    expect(body.body.details).toEqual([{ path: 'body', message: NOT_UTF8_MESSAGE }]);
    const page = (await (await sut.call('GET', `/api/Dac?brand=${b}`, app)).json()) as { total: number };
    expect(page.total).toBe(0);
  });

  it('a NUL or a lone surrogate in an API key name, at creation and in PATCH', async () => {
    expectField(
      await call('POST', '/api/ApiKeys', dashboard, bearer(user.token, json({ name: 'x\u0000y', scopes: 'read:devices' }))),
      'body.name',
    );
    expectField(
      await call('POST', '/api/ApiKeys', dashboard, bearer(user.token, json({ name: 'x\ud800y', scopes: 'read:devices' }))),
      'body.name',
    );
    const created = await call('POST', '/api/ApiKeys', dashboard, bearer(user.token, json({ name: 'fine', scopes: 'read:devices' })));
    expect(created.status).toBe(201);
    expectField(
      await call('PATCH', `/api/ApiKeys/${created.body.id as string}`, dashboard, bearer(user.token, json({ name: 'x\u0000y' }))),
      'body.name',
    );
  });

  it('a NUL in a subscription planId', async () => {
    expectField(await call('POST', '/api/Subscriptions', dashboard, bearer(user.token, json({ planId: '\u0000' }))), 'body.planId');
  });

  it("a NUL in an import row's brand or model, also with ?dryRun=true; nothing is written", async () => {
    const b = brand();
    for (const query of ['', '?dryRun=true']) {
      expectField(
        await call('POST', `/api/Dac/import${query}`, app, bearer(admin.token, json([speaker(b, 'Fine'), speaker(`${b}\u0000`, 'X')]))),
        'body[1].brand',
      );
      expectField(
        await call('POST', `/api/Dac/import${query}`, app, bearer(admin.token, json({ items: [speaker(b, 'M\u0000')] }))),
        'body.items[0].model',
      );
    }
    const page = (await (await sut.call('GET', `/api/Dac?brand=${b}`, app)).json()) as { total: number };
    expect(page.total).toBe(0);
  });

  it('a NUL in a device name, in login and registration fields, and in a JSON key', async () => {
    expectField(
      await call('POST', '/api/Devices/Register', app, bearer(user.token, json({ serialNumber: serial(), name: 'a\u0000' }))),
      'body.name',
    );
    expectField(await call('POST', '/api/Users/Login', app, json({ email: 'a\u0000@example.com', password: PASSWORD })), 'body.email');
    expectField(
      await call(
        'POST',
        '/api/Users/Register',
        app,
        json({ email: 'x@example.com', password: PASSWORD, firstName: '\u0000', lastName: 'b' }),
      ),
      'body.firstName',
    );
    expectField(
      await call('POST', '/api/Users/Login', app, json({ 'e\u0000': 1, email: 'a@example.com', password: PASSWORD })),
      'body.e\\u0000',
    );
  });

  it('a NUL in a path parameter is an unknown id (404), not a 500', async () => {
    const res = await call('DELETE', '/api/ApiKeys/a%00b', dashboard, bearer(user.token));
    expect(res.status).toBeLessThan(500);
    expectErrorShape(res, res.status);
  });
});

describe('ids no row can have (item 3)', () => {
  it('POST /api/Devices/Register with catalogEntryId 2147483648 is 422 like any unknown entry; nothing is stored', async () => {
    const sn = serial();
    const res = await sut.call(
      'POST',
      '/api/Devices/Register',
      app,
      bearer(user.token, json({ serialNumber: sn, name: 'Far', catalogEntryId: INT4_MAX + 1 })),
    );
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({
      error: 'Unprocessable entity',
      details: [{ path: 'body.catalogEntryId', message: 'No catalog entry has this id' }],
    });
    const list = (await (await sut.call('GET', '/api/Devices', app, bearer(user.token))).json()) as { items: { serialNumber: string }[] };
    expect(list.items.map((d) => d.serialNumber)).not.toContain(sn);
  });

  it('the largest int4 id is asked like any other (unknown: 422); past a safe integer is invalid (400)', async () => {
    expect(
      (
        await sut.call(
          'POST',
          '/api/Devices/Register',
          app,
          bearer(user.token, json({ serialNumber: serial(), name: 'Max', catalogEntryId: INT4_MAX })),
        )
      ).status,
    ).toBe(422);
    expect(
      (
        await sut.call(
          'POST',
          '/api/Devices/Register',
          app,
          bearer(user.token, json({ serialNumber: serial(), name: 'Huge', catalogEntryId: 2 ** 60 })),
        )
      ).status,
    ).toBe(400);
  });

  it('ids of keys and subscriptions in paths that no row can have are 404', async () => {
    for (const id of ['2147483648', '99999999999999999999', '-1', 'ffffffff-ffff-ffff-ffff-ffffffffffff']) {
      const key = await sut.call('PATCH', `/api/ApiKeys/${id}`, dashboard, bearer(user.token, json({ name: 'x' })));
      expect(key.status).toBe(404);
      expect((await sut.call('DELETE', `/api/ApiKeys/${id}`, dashboard, bearer(user.token))).status).toBe(404);
      expect((await sut.call('DELETE', `/api/Subscriptions/${id}`, dashboard, bearer(user.token))).status).toBe(404);
    }
  });
});
