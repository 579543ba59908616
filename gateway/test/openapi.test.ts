import { describe, expect, it } from '@jest/globals';
import { catalogQuerySchema } from '@acs/contracts';
import { ROUTES, buildOpenApiDocument } from '@acs/gateway';

/**
 * The spec's Endpoints and Scopes tables (service-interface.md), transcribed. The route table must
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

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument(ROUTES) as { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>> };

  it('is OpenAPI 3.1 with one operation per route and nothing more', () => {
    expect(doc.openapi).toBe('3.1.0');
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('states each route\'s scope and user requirement as the route table does', () => {
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
    const names = (op.parameters as { name: string; in: string }[]).filter((p) => p.in === 'query').map((p) => p.name).sort();
    expect(names).toEqual(Object.keys(catalogQuerySchema.shape).sort());
  });

  it('documents the catalog\'s conditional reads: If-None-Match, 304, ETag and Cache-Control', () => {
    const op = doc.paths['/api/Dac']!.get!;
    expect((op.parameters as { name: string; in: string }[]).filter((p) => p.in === 'header').map((p) => p.name)).toEqual(['If-None-Match']);
    const responses = op.responses as Record<string, { headers?: Record<string, unknown>; content?: unknown }>;
    for (const status of ['200', '304']) expect(Object.keys(responses[status]!.headers ?? {}).sort()).toEqual(['Cache-Control', 'ETag']);
    expect(responses['304']!.content).toBeUndefined();
  });

  it('shows the spec\'s exact 401 and 403 bodies', () => {
    const op = doc.paths['/api/Dac']!.get!;
    const responses = op.responses as Record<string, { content: Record<string, { example: unknown }> }>;
    expect(responses['401']!.content['application/json']!.example).toEqual({ error: 'Missing authentication headers', message: 'Both X-Api-Key and X-Api-Secret headers are required' });
    expect(responses['403']!.content['application/json']!.example).toEqual({ error: 'Insufficient permissions', message: 'Your API key does not have the required scope' });
  });
});
