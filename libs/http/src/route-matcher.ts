/*
 * Method-and-path matching for the two places that route by hand: the gateway (its route table,
 * built from the contracts) and the account dashboard (its pages). Koa's router serves the services;
 * these two answer 404/405 themselves and need the allowed methods of a known path.
 */

/** What a route must say: its method and its path, `{name}` marking one path segment. */
export interface MatchableRoute {
  readonly method: string;
  readonly path: string;
}

export type RouteMatch<R> =
  | { kind: 'found'; route: R; params: Record<string, string> }
  | { kind: 'wrong-method'; allowed: string[] }
  | { kind: 'none' };

export interface RouteMatcherOptions {
  /**
   * The regular expression one `{name}` matches (a capture group). Default: any one segment,
   * percent-decoded (a malformed escape is no route). A narrower one (the dashboard's plain ids)
   * refuses everything else as no route.
   */
  parameter?: string;
}

const ANY_SEGMENT = '([^/]+)';

interface PatternRoute<R> {
  regex: RegExp;
  names: string[];
  route: R;
}

/** `/things/{id}` as an anchored regex with one capture group per parameter, and the parameters' names. */
export function compilePath(path: string, parameter: string = ANY_SEGMENT): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return parameter;
  });
  return { regex: new RegExp(`^${source}$`), names };
}

/**
 * Static paths resolve with one Map lookup (the gateway's hot path); paths with `{param}` fall back
 * to a short list of regexes, in the order given. Matching is case-sensitive, as the spec says. A
 * path that exists under other methods is `wrong-method` with those methods (parameterized routes'
 * first; HEAD after GET), for a 405 with Allow. HEAD finds the GET route.
 */
export function createRouteMatcher<R extends MatchableRoute>(
  routes: readonly R[],
  options: RouteMatcherOptions = {},
): (method: string, path: string) => RouteMatch<R> {
  const exact = new Map<string, R>();
  const methodsByPath = new Map<string, string[]>();
  const patterns: PatternRoute<R>[] = [];
  for (const route of routes) {
    if (route.path.includes('{')) patterns.push({ ...compilePath(route.path, options.parameter), route });
    else exact.set(`${route.method} ${route.path}`, route);
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  }
  const decode = options.parameter === undefined;

  return (requested, path) => {
    // HEAD is GET without the body (RFC 9110, 9.3.2): every GET route answers it (Node drops the body).
    const method = requested === 'HEAD' ? 'GET' : requested;
    const route = exact.get(`${method} ${path}`);
    if (route) return { kind: 'found', route, params: {} };
    const allowed: string[] = [];
    for (const pattern of patterns) {
      const match = pattern.regex.exec(path);
      if (!match) continue;
      if (pattern.route.method === method) {
        const params = readParams(pattern.names, match, decode);
        return params ? { kind: 'found', route: pattern.route, params } : { kind: 'none' };
      }
      allowed.push(pattern.route.method);
    }
    const staticMethods = methodsByPath.get(path);
    if (staticMethods) allowed.push(...staticMethods);
    return allowed.length > 0 ? { kind: 'wrong-method', allowed: withHead(allowed) } : { kind: 'none' };
  };
}

/** The Allow list of a 405: HEAD right after GET, since every GET route answers it too. */
function withHead(allowed: readonly string[]): string[] {
  return allowed.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]));
}

/** A malformed escape (`%E0%A4%A`) is no route rather than a crash. */
function readParams(names: string[], match: RegExpExecArray, decode: boolean): Record<string, string> | null {
  const params: Record<string, string> = {};
  try {
    for (const [i, name] of names.entries()) params[name] = decode ? decodeURIComponent(match[i + 1]!) : match[i + 1]!;
  } catch {
    return null;
  }
  return params;
}
