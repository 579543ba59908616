import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { signContext } from '@acs/auth';
import { atLeast, ROLE, type Endpoint } from '@acs/contracts';
import { createLogger } from '@acs/logger';
import { createMetricsRegistry } from '@acs/metrics';
import { Router, createHttpApp, handle, listen, routerPath, type AppState, type RunningServer } from '@acs/http';

const SECRET = 'internal-secret-for-operation-tests-0123456789';

/** An operation of the shape the contract files declare: an Admin-only POST with a path parameter, a query and a body. */
const renameThing = {
  operationId: 'renameThing',
  method: 'POST',
  path: '/api/Things/{id}/name',
  scope: 'write:devices',
  user: atLeast(ROLE.admin),
  upstream: 'catalog',
  summary: 'Rename a thing',
  description: 'test operation',
  query: { schema: z.strictObject({ dryRun: z.enum(['true', 'false']).optional() }), parameters: [] },
  requestBody: z.strictObject({ name: z.string().min(1) }),
  success: { status: 200, description: 'renamed' },
} satisfies Endpoint;

const optionalBody = {
  ...renameThing,
  path: '/api/Things/{id}/touch',
  bodyReading: 'optional-json',
  requestBody: z.object({ n: z.number().default(7) }),
} satisfies Endpoint;

/** An operation that takes no query parameters (most of them). */
const { query: _renameQuery, ...withoutQuery } = renameThing;
const noQuery = { ...withoutQuery, path: '/api/Things/{id}/plain' } satisfies Endpoint;

let bodiesRead = 0;
let server: RunningServer;
beforeAll(async () => {
  const router = new Router<AppState>();
  handle(router, renameThing, (ctx, { caller, body, query, params }) => {
    bodiesRead += 1;
    ctx.body = { userId: caller.userId, name: body.name, dryRun: query.dryRun ?? null, id: params.id };
  });
  handle(router, noQuery, (ctx, { body, query }) => {
    ctx.body = { name: body.name, query: query ?? null };
  });
  handle(router, optionalBody, (ctx, { body }) => {
    ctx.body = body;
  });
  const app = createHttpApp({
    service: 'ops-test',
    logger: createLogger({ name: 'ops-test', level: 'silent' }),
    internalSecret: SECRET,
    routers: [router],
    metrics: createMetricsRegistry('ops-test'),
    readiness: {},
  });
  server = await listen(app.callback());
});
afterAll(async () => server.close());

function call(path: string, user: { userId?: number; role?: number }, body?: string): Promise<Response> {
  const { context, signature } = signContext(SECRET, 'ops-test', 'POST', path, { requestId: 'r', keyId: 'k', scopes: [], ...user });
  return fetch(server.url + path, {
    method: 'POST',
    headers: { 'x-acs-context': context, 'x-acs-signature': signature, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body } : {}),
  });
}

describe('handle: an operation registered from its contract', () => {
  it('turns the contract path into the router form', () => {
    expect(routerPath('/api/ApiKeys/{id}/roll')).toBe('/api/ApiKeys/:id/roll');
  });

  it('gives the handler the caller, the parsed body and query, and the path parameters', async () => {
    const res = await call('/api/Things/abc/name?dryRun=true', { userId: 5, role: ROLE.admin }, '{"name":"new"}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ userId: 5, name: 'new', dryRun: 'true', id: 'abc' });
  });

  it("refuses a role below the contract's minimum with the spec 403, before reading the body", async () => {
    const before = bodiesRead;
    const res = await call('/api/Things/abc/name', { userId: 5, role: ROLE.subscriber }, '{"name":"new"}');
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      error: 'Insufficient permissions',
      message: 'A valid user JWT with sufficient role is required',
    });
    expect((await call('/api/Things/abc/name', {}, '{"name":"new"}')).status).toBe(403);
    expect(bodiesRead).toBe(before);
  });

  it('answers 400 for a query or a body the contract refuses', async () => {
    const badQuery = await call('/api/Things/abc/name?dry_run=1', { userId: 5, role: ROLE.admin }, '{"name":"new"}');
    expect(badQuery.status).toBe(400);
    const badBody = await call('/api/Things/abc/name', { userId: 5, role: ROLE.admin }, '{"name":""}');
    expect(badBody.status).toBe(400);
    expect(((await badBody.json()) as { details: { path: string }[] }).details[0]!.path).toBe('body.name');
  });

  it('refuses any query parameter on an operation that takes none, naming it', async () => {
    const admin = { userId: 5, role: ROLE.admin };
    expect(await (await call('/api/Things/abc/plain', admin, '{"name":"new"}')).json()).toEqual({ name: 'new', query: null });
    const refused = await call('/api/Things/abc/plain?limit=1', admin, '{"name":"new"}');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'query.limit', message: 'unknown parameter' }],
    });
  });

  it('parses an absent optional body as {} (defaults apply) and a sent one with the schema', async () => {
    expect(await (await call('/api/Things/x/touch', { userId: 1, role: ROLE.admin })).json()).toEqual({ n: 7 });
    expect(await (await call('/api/Things/x/touch', { userId: 1, role: ROLE.admin }, '{"n":3}')).json()).toEqual({ n: 3 });
  });
});
