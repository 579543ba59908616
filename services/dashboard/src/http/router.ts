export type PageMethod = 'GET' | 'POST';

export interface RouteDefinition<H> {
  method: PageMethod;
  /** `/keys/:id/revoke`: a `:name` segment matches one path segment of plain characters. */
  pattern: string;
  handler: H;
}

export type RouteMatch<H> =
  | { kind: 'found'; handler: H; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string }
  | { kind: 'not-found' };

/** Identifiers in paths (key, subscription ids) are uuids or plain words: nothing to decode or escape. */
const PARAM = '([A-Za-z0-9_-]{1,64})';

interface CompiledRoute<H> extends RouteDefinition<H> {
  regex: RegExp;
  names: string[];
}

function compile<H>(route: RouteDefinition<H>): CompiledRoute<H> {
  const names: string[] = [];
  const source = route.pattern
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(segment.slice(1));
      return PARAM;
    })
    .join('/');
  return { ...route, regex: new RegExp(`^${source}$`), names };
}

/** The dashboard's few pages do not need a router package: match method and path, collect parameters. */
export function createRouter<H>(routes: readonly RouteDefinition<H>[]): { match(method: string, path: string): RouteMatch<H> } {
  const compiled = routes.map(compile);
  return {
    match(method, path) {
      const wanted = method === 'HEAD' ? 'GET' : method;
      const allowed: string[] = [];
      for (const route of compiled) {
        const found = route.regex.exec(path);
        if (!found) continue;
        if (route.method !== wanted) {
          allowed.push(route.method === 'GET' ? 'GET, HEAD' : route.method);
          continue;
        }
        const params: Record<string, string> = {};
        for (const [i, name] of route.names.entries()) params[name] = found[i + 1]!;
        return { kind: 'found', handler: route.handler, params };
      }
      return allowed.length > 0 ? { kind: 'method-not-allowed', allow: allowed.join(', ') } : { kind: 'not-found' };
    },
  };
}
