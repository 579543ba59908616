import { describe, expect, it } from '@jest/globals';
import { createRouteMatcher } from '../src/routing/route-matcher.js';
import type { RouteSpec } from '../src/routing/route-table.js';

const route = (method: RouteSpec['method'], path: string): RouteSpec => ({
  method,
  path,
  scope: 'read:devices',
  user: { kind: 'none' },
  upstream: 'catalog',
  operationId: path,
});
const match = createRouteMatcher([
  route('GET', '/api/Dac'),
  route('POST', '/api/Dac/import'),
  route('PATCH', '/api/ApiKeys/{id}'),
  route('DELETE', '/api/ApiKeys/{id}'),
]);

describe('route matcher', () => {
  it('matches static paths exactly and case-sensitively', () => {
    expect(match('GET', '/api/Dac')).toMatchObject({ kind: 'found', route: { path: '/api/Dac' } });
    expect(match('GET', '/api/dac')).toEqual({ kind: 'none' });
    expect(match('GET', '/api/Dac/')).toEqual({ kind: 'none' });
  });
  it('extracts decoded path parameters', () => {
    expect(match('PATCH', '/api/ApiKeys/a%20b')).toEqual({
      kind: 'found',
      route: expect.objectContaining({ method: 'PATCH' }),
      params: { id: 'a b' },
    });
    expect(match('PATCH', '/api/ApiKeys/a/b')).toEqual({ kind: 'none' });
  });
  it('lists the allowed methods for a known path', () => {
    expect(match('PUT', '/api/Dac')).toEqual({ kind: 'wrong-method', allowed: ['GET'] });
    expect(match('GET', '/api/ApiKeys/x')).toEqual({ kind: 'wrong-method', allowed: ['PATCH', 'DELETE'] });
  });
  it('treats a malformed escape as no route', () => {
    expect(match('PATCH', '/api/ApiKeys/%E0%A4%A')).toEqual({ kind: 'none' });
  });
});
