import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { signContext } from '@acs/auth';
import { createLogger } from '@acs/logger';
import { createMetricsRegistry } from '@acs/metrics';
import {
  NOT_UTF8_MESSAGE,
  Router,
  UNSTORABLE_TEXT_MESSAGE,
  createHttpApp,
  findUnstorableText,
  listen,
  nonUtf8QueryParameters,
  parseInput,
  parseQuery,
  readJsonBody,
  type AppState,
  type RunningServer,
} from '@acs/http';

// Issue 13, item 2: the one rule for text that cannot be stored, and the database-error safety net.
const SECRET = 'internal-secret-for-input-tests-0123456789';

/** What pg and PGlite throw for a value the database refuses: a plain error with a SQLSTATE. */
const databaseError = (code: string): Error => Object.assign(new Error(`db said no (${code}): SELECT secret FROM t`), { code });

const router = new Router<AppState>();
router.post('/echo', async (ctx) => {
  ctx.body = parseInput(z.object({ name: z.string() }).passthrough(), await readJsonBody(ctx), 'body');
});
router.get('/search', (ctx) => {
  ctx.body = parseQuery(z.object({ q: z.string().optional() }), ctx);
});
router.get('/db/:code', (ctx) => {
  throw new Error('the query failed', { cause: databaseError(ctx.params.code!) });
});

let server: RunningServer;
beforeAll(async () => {
  const logger = createLogger({ name: 'input-test', level: 'silent' });
  server = await listen(
    createHttpApp({
      service: 'input-test',
      logger,
      internalSecret: SECRET,
      routers: [router],
      metrics: createMetricsRegistry('input-test'),
      readiness: {},
    }).callback(),
  );
});
afterAll(async () => server.close());

function signed(method: string, path: string, init: RequestInit = {}): Promise<Response> {
  const { context, signature } = signContext(SECRET, 'input-test', method, path, { requestId: 'r', keyId: 'key-1', scopes: [] });
  return fetch(server.url + path, {
    ...init,
    method,
    headers: {
      'x-acs-context': context,
      'x-acs-signature': signature,
      'content-type': 'application/json',
      ...(init.headers as Record<string, string>),
    },
  });
}

describe('findUnstorableText', () => {
  it('finds NUL and unpaired surrogates anywhere, by path, and passes paired ones', () => {
    const value = { a: 'ok \u{1F3B5}', b: ['x', 'y\u0000'], c: { d: '\ud800', e: '\udc00x', f: 'é' }, 'k\u0000': 1 };
    expect(findUnstorableText(value, 'body')).toEqual([
      { path: 'body.b[1]', message: UNSTORABLE_TEXT_MESSAGE },
      { path: 'body.c.d', message: UNSTORABLE_TEXT_MESSAGE },
      { path: 'body.c.e', message: UNSTORABLE_TEXT_MESSAGE },
      { path: 'body.k\\u0000', message: UNSTORABLE_TEXT_MESSAGE },
    ]);
    expect(findUnstorableText({ n: 1, t: true, z: null, s: 'plain' }, 'body')).toEqual([]);
  });
});

describe('the rule applied to every request', () => {
  it('a NUL in a JSON body is 400 naming the field, before any schema runs', async () => {
    const res = await signed('POST', '/echo', { body: JSON.stringify({ name: 'a\u0000b' }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'Bad request', details: [{ path: 'body.name', message: UNSTORABLE_TEXT_MESSAGE }] });
  });

  it('a lone surrogate written as a \\u escape in a JSON body is 400 naming the field', async () => {
    const res = await signed('POST', '/echo', { body: '{"name": "a\\ud800b"}' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ details: [{ path: 'body.name', message: UNSTORABLE_TEXT_MESSAGE }] });
  });

  // The body is walked only when its text holds a \u escape: raw bytes can't smuggle either in.
  it('raw bytes of a surrogate (CESU-8), Latin-1 or a raw NUL in a body never reach a route as such', async () => {
    const cesu = Buffer.concat([Buffer.from('{"name": "a'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('b"}')]);
    const refused = await signed('POST', '/echo', { body: cesu });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      message: 'The request body is not valid UTF-8',
      details: [{ path: 'body', message: NOT_UTF8_MESSAGE }],
    });
    // "Röhre" from a client that sends Latin-1: refused, not stored as "R\ufffdhre".
    const latin1 = await signed('POST', '/echo', { body: Buffer.from('{"name": "Röhre"}', 'latin1') });
    expect(latin1.status).toBe(400);
    expect((await signed('POST', '/echo', { body: Buffer.from('{"name": "Röhre"}', 'utf8') })).status).toBe(200);
    const rawNul = await signed('POST', '/echo', { body: Buffer.from('{"name": "a\u0000b"}') });
    expect(rawNul.status).toBe(400);
    expect(await rawNul.json()).toMatchObject({ message: 'The request body is not valid JSON' });
  });

  it('a NUL in a query parameter is 400 naming the parameter', async () => {
    const res = await signed('GET', '/search?q=a%00b');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ details: [{ path: 'query.q', message: UNSTORABLE_TEXT_MESSAGE }] });
  });

  it('query escapes that do not spell UTF-8 are 400 naming each parameter; UTF-8 escapes, a stray % and a literal U+FFFD pass', async () => {
    const refused = await signed('GET', '/search?q=R%F6hre&ok=caf%C3%A9&cut=%E2%82&%FFname=x');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      message: 'The request query is not valid UTF-8',
      details: [
        { path: 'query.q', message: NOT_UTF8_MESSAGE },
        { path: 'query.cut', message: NOT_UTF8_MESSAGE },
        { path: 'query.\ufffdname', message: NOT_UTF8_MESSAGE },
      ],
    });
    const passed = await signed('GET', '/search?q=caf%C3%A9+%F0%9F%8E%A7');
    expect(passed.status).toBe(200);
    expect(await passed.json()).toEqual({ q: 'café 🎧' });
    expect(nonUtf8QueryParameters('q=100%&r=%zz&s=%EF%BF%BD&t=%ED%A0%80')).toEqual(['t']); // CESU-8 of a surrogate is not UTF-8
    expect(nonUtf8QueryParameters('q=%c3%a9')).toEqual([]);
  });

  it('clean text passes untouched', async () => {
    const res = await signed('POST', '/echo', { body: JSON.stringify({ name: 'Ada \u{1F3B5} Lovelace' }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: 'Ada \u{1F3B5} Lovelace' });
  });
});

describe('database refusals of a value are 400, never 500 (the safety net)', () => {
  it.each(['22P05', '22021', '22003', '22001', '22P02'])(
    'SQLSTATE %s gives 400 in the error shape without the database text',
    async (code) => {
      const res = await signed('GET', `/db/${code}`);
      expect(res.status).toBe(400);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ error: 'Bad request', message: expect.any(String), requestId: res.headers.get('x-request-id') });
      expect(JSON.stringify(body)).not.toMatch(/SELECT|secret|db said/);
    },
  );

  it('other database errors stay what they were (a unique violation unmapped by the route is still a 500)', async () => {
    expect((await signed('GET', '/db/23505')).status).toBe(500);
  });
});
