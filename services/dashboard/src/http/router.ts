import { createRouteMatcher, type RouteMatch as PathMatch } from '@acs/http';

export type PageMethod = 'GET' | 'POST';

export interface RouteDefinition<H> {
  method: PageMethod;
  /** `/keys/{id}/revoke`: a `{name}` segment matches one path segment of plain characters (PARAM). */
  pattern: string;
  handler: H;
}

export type RouteMatch<H> =
  | { kind: 'found'; handler: H; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string }
  | { kind: 'not-found' };

/** Identifiers in paths (key, subscription ids) are uuids or plain words: nothing to decode or escape, anything else is no page. */
const PARAM = '([A-Za-z0-9_-]{1,64})';

interface PageRoute<H> {
  method: PageMethod;
  path: string;
  handler: H;
}

/** The dashboard's pages through the route matcher the gateway uses too (libs/http), which answers HEAD as GET. */
export function createRouter<H>(routes: readonly RouteDefinition<H>[]): { match(method: string, path: string): RouteMatch<H> } {
  // `:id` was this router's old parameter syntax: such a page would only ever answer 404.
  const stale = routes.find(({ pattern }) => pattern.includes('/:'));
  if (stale) throw new Error(`page pattern ${stale.pattern}: name parameters as {id}, not :id`);
  const match = createRouteMatcher<PageRoute<H>>(
    routes.map(({ method, pattern, handler }) => ({ method, path: pattern, handler })),
    { parameter: PARAM },
  );
  return { match: (method, path) => pageMatch(match(method, path)) };
}

function pageMatch<H>(found: PathMatch<PageRoute<H>>): RouteMatch<H> {
  if (found.kind === 'found') return { kind: 'found', handler: found.route.handler, params: found.params };
  if (found.kind === 'none') return { kind: 'not-found' };
  return { kind: 'method-not-allowed', allow: found.allowed.join(', ') };
}
