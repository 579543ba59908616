import { describe, expect, it } from '@jest/globals';
import { catalogQuerySchema } from '@acs/contracts';
import { ROUTES, buildOpenApiDocument } from '@acs/gateway';

/**
 * The spec's Endpoints and Scopes tables (docs/api-contract.md, "Operations" and "Scopes"), transcribed. The route table must
 * hold exactly these; the scope of the two routes the spec leaves open (ApiKeys, Subscriptions) is
 * the platform's decision: system:full-access. Platform additions are marked where they follow the spec's rows.
 */
const SPEC_ENDPOINTS = [
  ['POST', '/api/Users/Login', 'auth:login', 'none'],
  ['POST', '/api/Users/Register', 'auth:register', 'none'],
  ['GET', '/api/Devices', 'auth:login', 'user'],
  ['POST', '/api/Devices/Register', 'register:device', 'user'],
  ['GET', '/api/Dac', 'read:devices', 'none'],
  ['POST', '/api/Dac/import', 'write:devices', 'admin'],
  ['GET', '/api/SubscriptionPlans', 'read:devices', 'none'],
  ['POST', '/api/Subscriptions', 'system:full-access', 'user'],
  // Not in the spec's table: users list and cancel their subscriptions (issue 5).
  ['GET', '/api/Subscriptions', 'system:full-access', 'user'],
  ['DELETE', '/api/Subscriptions/{id}', 'system:full-access', 'user'],
  ['GET', '/api/ApiKeys', 'system:full-access', 'role>=1'],
  ['POST', '/api/ApiKeys', 'system:full-access', 'role>=1'],
  // Not in the spec's table: the dashboard's scope change and revocation (issue 4).
  ['PATCH', '/api/ApiKeys/{id}', 'system:full-access', 'role>=1'],
  ['DELETE', '/api/ApiKeys/{id}', 'system:full-access', 'user'],
  // Not in the spec's table: rolling a key's secret and its daily usage (issue 17).
  ['POST', '/api/ApiKeys/{id}/roll', 'system:full-access', 'role>=1'],
  ['GET', '/api/ApiKeys/{id}/usage', 'system:full-access', 'user'],
  ['GET', '/api/Usage', 'system:full-access', 'user'],
  // Sessions (issue 32).
  ['GET', '/api/Sessions', 'system:full-access', 'user'],
  ['DELETE', '/api/Sessions/{id}', 'system:full-access', 'user'],
  ['POST', '/api/Sessions/EndOthers', 'system:full-access', 'user'],
  // Password change and reset (issue 32).
  ['POST', '/api/Users/Password', 'system:full-access', 'user'],
  ['POST', '/api/Users/PasswordReset', 'auth:login', 'none'],
  ['POST', '/api/Users/PasswordReset/Complete', 'auth:login', 'none'],
  // E-mail verification and the account's own view (issue 32).
  ['POST', '/api/Users/VerifyEmail', 'auth:login', 'none'],
  ['POST', '/api/Users/VerifyEmail/Resend', 'system:full-access', 'user'],
  ['GET', '/api/Users/Me', 'system:full-access', 'user'],
  ['DELETE', '/api/Users/Me', 'system:full-access', 'user'],
  // Two-factor sign-in (issue 32).
  ['POST', '/api/Users/TwoFactor/Enroll', 'system:full-access', 'user'],
  ['POST', '/api/Users/TwoFactor/Confirm', 'system:full-access', 'user'],
  ['POST', '/api/Users/Login/TwoFactor', 'auth:login', 'none'],
  ['POST', '/api/Users/TwoFactor/Disable', 'system:full-access', 'user'],
  ['POST', '/api/Users/TwoFactor/RecoveryCodes', 'system:full-access', 'user'],
  // Not in the spec's table: the user's own audit trail (issue 30).
  ['GET', '/api/AuditLog', 'system:full-access', 'user'],
  // Webhooks (issue 30).
  ['POST', '/api/Webhooks', 'system:full-access', 'user'],
  ['GET', '/api/Webhooks', 'system:full-access', 'user'],
  ['GET', '/api/Webhooks/{id}', 'system:full-access', 'user'],
  ['PATCH', '/api/Webhooks/{id}', 'system:full-access', 'user'],
  ['DELETE', '/api/Webhooks/{id}', 'system:full-access', 'user'],
  ['POST', '/api/Webhooks/{id}/RotateSecret', 'system:full-access', 'user'],
  ['GET', '/api/Webhooks/{id}/Deliveries', 'system:full-access', 'user'],
  ['POST', '/api/Webhooks/{id}/Deliveries/{deliveryId}/Replay', 'system:full-access', 'user'],
] as const;

const requirement = (route: (typeof ROUTES)[number]): string => {
  if (route.user.kind === 'none') return 'none';
  if (route.user.minRole === 0) return 'user';
  return route.user.minRole === 2 ? 'admin' : `role>=${route.user.minRole}`;
};

describe('route table', () => {
  it('holds every endpoint of the spec, with its scope and user requirement, and nothing else', () => {
    const table = ROUTES.map((r) => [r.method, r.path, r.scope, requirement(r)]);
    expect(table).toEqual(SPEC_ENDPOINTS.map((row) => [...row]));
  });
});

type Doc = { openapi: string; servers?: unknown[]; paths: Record<string, Record<string, Record<string, unknown>>> };
type Route = (typeof ROUTES)[number];

/**
 * What an operation's service answers beyond what the route table implies (the services' READMEs
 * and routes): its success statuses and its own errors. Transcribed, so a document that drops one fails.
 */
const SERVICE_STATUSES: Record<string, number[]> = {
  login: [200, 429],
  register: [201, 409],
  listDevices: [200],
  registerDevice: [200, 201, 409, 422],
  listCatalog: [200],
  importCatalog: [200],
  listPlans: [200],
  createSubscription: [201, 404, 409, 422],
  listSubscriptions: [200],
  cancelSubscription: [200, 409],
  listApiKeys: [200],
  createApiKey: [201, 409],
  changeApiKey: [200, 409],
  revokeApiKey: [200],
};

const pathParameters = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/**
 * The statuses an operation can answer, derived from the route table: every /api request can meet
 * node:http's own answers (400 malformed, 408, 417, 431), layer 1 (401), the scope (403), the gateway's
 * body limit (413, checked on every route), an unexpected defect (500) and its upstream (502, 503,
 * 504); a route with a body can also 400/415; a path parameter 404; plus the service's own.
 */
function possibleStatuses(route: Route): number[] {
  const statuses = new Set([400, 401, 403, 408, 413, 417, 431, 500, 502, 503, 504, ...(SERVICE_STATUSES[route.operationId] ?? [])]);
  // Every write also meets the gateway's Idempotency-Key answers (issue 31): 409 while running, 422 for another body.
  if (route.method === 'POST' || route.method === 'PATCH') for (const status of [400, 409, 413, 415, 422]) statuses.add(status);
  if (pathParameters(route.path).length > 0) statuses.add(404);
  return [...statuses];
}

/** Everything a generated client needs that the document does not declare for this route. */
function undeclared(doc: Doc, route: Route): string[] {
  const op = doc.paths[route.path]?.[route.method.toLowerCase()];
  if (!op) return [`${route.method} ${route.path}: no operation`];
  const problems: string[] = [];
  const params = (op.parameters ?? []) as { in: string; name: string; required?: boolean }[];
  for (const name of pathParameters(route.path)) {
    if (!params.some((p) => p.in === 'path' && p.name === name && p.required === true)) problems.push(`path parameter {${name}}`);
  }
  const idempotencyKeys = params.filter((p) => p.in === 'header' && p.name === 'Idempotency-Key').length;
  if (idempotencyKeys !== (route.method === 'POST' || route.method === 'PATCH' ? 1 : 0))
    problems.push(`${idempotencyKeys} Idempotency-Key headers`);
  const responses = op.responses as Record<
    string,
    { headers?: Record<string, unknown>; content?: Record<string, { schema?: { $ref?: string } }> }
  >;
  for (const status of possibleStatuses(route)) {
    const response = responses[String(status)];
    if (!response) {
      problems.push(`status ${status}`);
      continue;
    }
    if (!response.headers?.['X-Request-Id']) problems.push(`X-Request-Id header on ${status}`);
    if (status >= 400 && response.content?.['application/json']?.schema?.$ref !== '#/components/schemas/Error')
      problems.push(`error shape on ${status}`);
    if ((status === 429 || status === 503) && !response.headers?.['Retry-After']) problems.push(`Retry-After header on ${status}`);
  }
  return problems.map((p) => `${route.method} ${route.path}: ${p}`);
}

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument(ROUTES) as Doc;

  it('declares, for every operation, its path parameters and every status it can answer, with the headers and the error shape', () => {
    expect(ROUTES.flatMap((route) => undeclared(doc, route))).toEqual([]);
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('the drift check fails on an operation missing a path parameter or a possible status', () => {
    const patch = ROUTES.find((r) => r.operationId === 'changeApiKey')!;
    const broken = structuredClone(doc);
    const op = broken.paths[patch.path]!.patch!;
    op.parameters = [];
    delete (op.responses as Record<string, unknown>)['415'];
    expect(undeclared(broken, patch)).toEqual([
      `PATCH ${patch.path}: path parameter {id}`,
      `PATCH ${patch.path}: 0 Idempotency-Key headers`,
      `PATCH ${patch.path}: status 415`,
    ]);
  });

  it('refuses to build for a route whose path parameter is not described', () => {
    const login = ROUTES.find((r) => r.operationId === 'login')!;
    expect(() => buildOpenApiDocument([{ ...login, path: '/api/Users/{userId}/Login' }])).toThrow('{userId}');
  });

  it('is OpenAPI 3.1 with one operation per route, and the public leak report (issue 31), and nothing more', () => {
    expect(doc.openapi).toBe('3.1.0');
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual([...ROUTES.map((r) => `${r.method} ${r.path}`), 'POST /secret-scanning/github'].sort());
    expect(doc.paths['/secret-scanning/github']!.post!.security).toEqual([]);
  });

  it("states each route's scope and user requirement as the route table does", () => {
    for (const route of ROUTES) {
      const op = doc.paths[route.path]![route.method.toLowerCase()]!;
      expect(op['x-required-scope']).toBe(route.scope);
      const security = op.security as Record<string, unknown>[];
      expect(Object.keys(security[0]!).includes('UserJwt')).toBe(route.user.kind === 'user');
      const responses = op.responses as Record<string, unknown>;
      for (const status of ['401', '403', '404', '503']) expect(responses[status]).toBeDefined();
    }
  });

  it('documents exactly the query parameters the catalog accepts', () => {
    const op = doc.paths['/api/Dac']!.get!;
    const names = (op.parameters as { name: string; in: string }[])
      .filter((p) => p.in === 'query')
      .map((p) => p.name)
      .sort();
    expect(names).toEqual(Object.keys(catalogQuerySchema.shape).sort());
  });

  it("documents the catalog's conditional reads: If-None-Match, 304, ETag and Cache-Control", () => {
    const op = doc.paths['/api/Dac']!.get!;
    expect((op.parameters as { name: string; in: string }[]).filter((p) => p.in === 'header').map((p) => p.name)).toEqual([
      'If-None-Match',
    ]);
    const responses = op.responses as Record<string, { headers?: Record<string, unknown>; content?: unknown }>;
    for (const status of ['200', '304'])
      expect(Object.keys(responses[status]!.headers ?? {})).toEqual(expect.arrayContaining(['Cache-Control', 'ETag']));
    expect(responses['304']!.content).toBeUndefined();
  });

  it("shows the spec's exact 401 and 403 bodies", () => {
    const op = doc.paths['/api/Dac']!.get!;
    const responses = op.responses as Record<string, { content: Record<string, { example: unknown }> }>;
    expect(responses['401']!.content['application/json']!.example).toEqual({
      error: 'Missing authentication headers',
      message: 'Both X-Api-Key and X-Api-Secret headers are required',
      code: 'invalid_credentials',
    });
    expect(responses['403']!.content['application/json']!.example).toEqual({
      error: 'Insufficient permissions',
      message: 'Your API key does not have the required scope',
      code: 'missing_scope',
    });
  });
});
