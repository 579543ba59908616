import { describe, expect, it } from '@jest/globals';
import { compilePath, createRouteMatcher } from '../src/route-matcher.js';

const route = (method: string, path: string) => ({ method, path, name: `${method} ${path}` });
const match = createRouteMatcher([
  route('GET', '/api/Dac'),
  route('POST', '/api/Dac/import'),
  route('PATCH', '/api/ApiKeys/{id}'),
  route('DELETE', '/api/ApiKeys/{id}'),
]);

describe('route matcher (gateway: any segment, decoded)', () => {
  it('matches static paths exactly and case-sensitively', () => {
    expect(match('GET', '/api/Dac')).toMatchObject({ kind: 'found', route: { name: 'GET /api/Dac' }, params: {} });
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
  it('answers HEAD with the GET route (RFC 9110), and never another method', () => {
    expect(match('HEAD', '/api/Dac')).toMatchObject({ kind: 'found', route: { name: 'GET /api/Dac' } });
    expect(match('HEAD', '/api/Dac/import')).toEqual({ kind: 'wrong-method', allowed: ['POST'] });
    expect(match('HEAD', '/api/ApiKeys/x')).toEqual({ kind: 'wrong-method', allowed: ['PATCH', 'DELETE'] });
  });
  it('lists the allowed methods for a known path, HEAD after GET', () => {
    expect(match('PUT', '/api/Dac')).toEqual({ kind: 'wrong-method', allowed: ['GET', 'HEAD'] });
    expect(match('GET', '/api/ApiKeys/x')).toEqual({ kind: 'wrong-method', allowed: ['PATCH', 'DELETE'] });
  });
  it('treats a malformed escape as no route', () => {
    expect(match('PATCH', '/api/ApiKeys/%E0%A4%A')).toEqual({ kind: 'none' });
  });
  it('escapes regex characters of the path', () => {
    const dotted = createRouteMatcher([route('GET', '/a.b/{id}')]);
    expect(dotted('GET', '/a.b/1')).toMatchObject({ kind: 'found', params: { id: '1' } });
    expect(dotted('GET', '/axb/1')).toEqual({ kind: 'none' });
  });
});

describe('route matcher (dashboard: a narrower parameter, not decoded)', () => {
  const pages = createRouteMatcher(
    [route('GET', '/keys'), route('GET', '/keys/new'), route('GET', '/keys/{id}'), route('POST', '/keys/{id}/revoke')],
    { parameter: '([A-Za-z0-9_-]{1,64})' },
  );
  it('prefers a static path over a parameter that would match it', () => {
    expect(pages('GET', '/keys/new')).toMatchObject({ kind: 'found', route: { name: 'GET /keys/new' }, params: {} });
    expect(pages('GET', '/keys/abc-1')).toMatchObject({ kind: 'found', route: { name: 'GET /keys/{id}' }, params: { id: 'abc-1' } });
  });
  it('refuses a parameter outside the pattern as no page, undecoded', () => {
    expect(pages('GET', '/keys/a%20b')).toEqual({ kind: 'none' });
    expect(pages('GET', `/keys/${'a'.repeat(65)}`)).toEqual({ kind: 'none' });
  });
  it('lists the other methods of a known page', () => {
    expect(pages('GET', '/keys/k1/revoke')).toEqual({ kind: 'wrong-method', allowed: ['POST'] });
  });
});

describe('compilePath', () => {
  it('names the parameters in order', () => {
    expect(compilePath('/a/{first}/b/{second}').names).toEqual(['first', 'second']);
  });
});
