import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { KIND, type ReceivedSpan } from './otlp-receiver.js';
import { childrenOf, findChain, findSpan, inTrace } from './span-tree.js';
import { startTracedSystem, type TracedSystem } from './traced-processes.js';

// Gateway, identity and keys as separate processes exporting OTLP/HTTP JSON to the test's receiver.
let sys: TracedSystem;

beforeAll(async () => {
  sys = await startTracedSystem({ env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' } });
}, 60_000);
afterAll(() => sys?.stop());

const requestIdOf = (span: ReceivedSpan): unknown => span.attributes['acs.request.id'];
const aRequestId = (): string => `trace-${randomBytes(6).toString('hex')}`;
/** The gateway's SERVER span of the request with this X-Request-Id. */
const rootOf = (requestId: string) => (spans: readonly ReceivedSpan[]) =>
  spans.find((s) => s.service === 'gateway' && s.kind === KIND.server && requestIdOf(s) === requestId);

describe('traces across processes', () => {
  it('a login: gateway SERVER → gateway CLIENT → identity SERVER → its database spans, the request id on the root', async () => {
    const user = await sys.signUp();
    const requestId = aRequestId();
    const login = await sys.call('POST', '/api/Users/Login', {
      body: { email: user.email, password: user.password },
      headers: { 'x-request-id': requestId },
    });
    expect(login.status).toBe(200);
    const { token } = (await login.json()) as { token: string };
    const chainOf = (spans: readonly ReceivedSpan[]) => {
      const root = rootOf(requestId)(spans);
      if (!root) return null;
      return findChain(
        spans,
        [
          { service: 'gateway', kind: KIND.client, name: 'POST /api/Users/Login' },
          { service: 'identity', kind: KIND.server, name: 'POST /api/Users/Login' },
          { service: 'identity', kind: KIND.client, name: /^SELECT / },
        ],
        root,
      );
    };
    const spans = await sys.receiver.waitForSpans((all) => chainOf(all) !== null);
    const root = rootOf(requestId)(spans)!;
    const [client, server, select] = chainOf(spans)!;
    expect(root).toMatchObject({
      name: 'POST /api/Users/Login',
      parentSpanId: '',
      attributes: expect.objectContaining({
        'http.request.method': 'POST',
        'http.route': '/api/Users/Login',
        'http.response.status_code': 200,
        'acs.request.id': requestId,
      }),
    });
    expect(client!.attributes).toMatchObject({ 'peer.service': 'identity', 'http.response.status_code': 200 });
    expect(server!.attributes).toMatchObject({
      'http.route': '/api/Users/Login',
      'http.response.status_code': 200,
      'acs.request.id': requestId,
    });
    expect(select!.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.operation.name': 'SELECT' });
    expect(String(select!.attributes['db.namespace'])).toMatch(/_identity$/);
    // The gateway's Redis round trip (the key record and the rate-limit script) is a child of its root.
    expect(childrenOf(spans, root).some((s) => s.attributes['db.system.name'] === 'redis')).toBe(true);
    // Nothing secret in any span of the trace: no password, no e-mail (a parameter), no JWT.
    const everything = JSON.stringify(inTrace(spans, root.traceId));
    for (const secret of [user.password, user.email, token, 'trace-test-secret']) expect(everything).not.toContain(secret);
  });

  it('an API key creation: gateway → keys service → its INSERT and its Redis write-through', async () => {
    const user = await sys.signUp();
    const requestId = aRequestId();
    const created = await sys.call('POST', '/api/ApiKeys', {
      body: { name: 'traced key', scopes: 'read:devices' },
      headers: { authorization: `Bearer ${user.token}`, 'x-request-id': requestId },
    });
    expect(created.status).toBe(201);
    const keysServerOf = (spans: readonly ReceivedSpan[]) => {
      const root = rootOf(requestId)(spans);
      const chain =
        root &&
        findChain(
          spans,
          [
            { service: 'gateway', kind: KIND.client },
            { service: 'keys', kind: KIND.server, name: 'POST /api/ApiKeys' },
          ],
          root,
        );
      const server = chain?.[1];
      if (!server) return null;
      const children = childrenOf(spans, server);
      const insert = findSpan(children, { service: 'keys', kind: KIND.client, name: /^INSERT / });
      const redis = children.find((s) => s.attributes['db.system.name'] === 'redis');
      return insert && redis ? { server, insert, redis } : null;
    };
    const spans = await sys.receiver.waitForSpans((all) => keysServerOf(all) !== null);
    const { server, insert, redis } = keysServerOf(spans)!;
    expect(server.attributes).toMatchObject({ 'http.response.status_code': 201, 'acs.request.id': requestId });
    expect(String(insert.attributes['db.query.text'])).toMatch(/^\s*INSERT INTO/i);
    expect(redis).toMatchObject({ name: 'EVALSHA', attributes: expect.objectContaining({ 'db.operation.name': 'EVALSHA' }) });
    const body = (await created.json()) as { key: string; secret: string };
    expect(JSON.stringify(inTrace(spans, server.traceId))).not.toContain(body.secret);
  });

  it("starts a new trace by default, linking the client's context; a malformed traceparent is ignored", async () => {
    const clientTrace = randomBytes(16).toString('hex');
    const clientSpan = randomBytes(8).toString('hex');
    const linked = aRequestId();
    const malformed = aRequestId();
    const register = (requestId: string, traceparent: string) =>
      sys.call('POST', '/api/Users/Register', {
        body: {
          email: `t-${randomBytes(6).toString('hex')}@example.com`,
          password: `pw-${randomBytes(12).toString('hex')}`,
          firstName: 'A',
          lastName: 'B',
        },
        headers: { 'x-request-id': requestId, traceparent: traceparent },
      });
    expect((await register(linked, `00-${clientTrace}-${clientSpan}-01`)).status).toBe(201);
    expect((await register(malformed, `00-${clientTrace}-not-a-span-id-01`)).status).toBe(201);
    const spans = await sys.receiver.waitForSpans((all) => rootOf(linked)(all) !== undefined && rootOf(malformed)(all) !== undefined);
    const root = rootOf(linked)(spans)!;
    expect(root.traceId).not.toBe(clientTrace);
    expect(root.parentSpanId).toBe('');
    expect(root.links).toEqual([{ traceId: clientTrace, spanId: clientSpan }]);
    const ignored = rootOf(malformed)(spans)!;
    expect(ignored.links).toEqual([]);
    expect(ignored.parentSpanId).toBe('');
  });

  it('makes no spans for probes', async () => {
    expect((await fetch(`${sys.gatewayUrl}/healthz`)).status).toBe(200);
    const requestId = aRequestId();
    await sys.call('GET', '/api/ApiKeys', { headers: { 'x-request-id': requestId } }); // 403: no user token; traced
    const spans = await sys.receiver.waitForSpans((all) => rootOf(requestId)(all) !== undefined);
    expect(rootOf(requestId)(spans)!.attributes['http.response.status_code']).toBe(403);
    expect(spans.some((s) => String(s.attributes['url.path']).includes('healthz'))).toBe(false);
  });
});
