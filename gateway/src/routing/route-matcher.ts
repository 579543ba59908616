import type { RouteSpec } from './route-table.js';

export type RouteMatch =
  | { kind: 'found'; route: RouteSpec; params: Record<string, string> }
  | { kind: 'wrong-method'; allowed: string[] }
  | { kind: 'none' };

interface PatternRoute {
  regex: RegExp;
  names: string[];
  route: RouteSpec;
}

/**
 * Static paths resolve with one Map lookup (the hot path); paths with `{param}` fall back to a
 * short list of regexes. Matching is case-sensitive, as the spec says.
 */
export function createRouteMatcher(routes: readonly RouteSpec[]): (method: string, path: string) => RouteMatch {
  const exact = new Map<string, RouteSpec>();
  const methodsByPath = new Map<string, string[]>();
  const patterns: PatternRoute[] = [];
  for (const route of routes) {
    if (route.path.includes('{')) {
      const names: string[] = [];
      const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, (_m, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      patterns.push({ regex: new RegExp(`^${source}$`), names, route });
    } else {
      exact.set(`${route.method} ${route.path}`, route);
    }
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  }

  return (method, path) => {
    const route = exact.get(`${method} ${path}`);
    if (route) return { kind: 'found', route, params: {} };
    const allowed: string[] = [];
    for (const pattern of patterns) {
      const match = pattern.regex.exec(path);
      if (!match) continue;
      if (pattern.route.method === method) {
        const params = decodeParams(pattern.names, match);
        return params ? { kind: 'found', route: pattern.route, params } : { kind: 'none' };
      }
      allowed.push(pattern.route.method);
    }
    const staticMethods = methodsByPath.get(path);
    if (staticMethods) allowed.push(...staticMethods);
    return allowed.length > 0 ? { kind: 'wrong-method', allowed } : { kind: 'none' };
  };
}

/** A malformed escape (`%E0%A4%A`) is no route rather than a crash. */
function decodeParams(names: string[], match: RegExpExecArray): Record<string, string> | null {
  const params: Record<string, string> = {};
  try {
    for (const [i, name] of names.entries()) params[name] = decodeURIComponent(match[i + 1]!);
  } catch {
    return null;
  }
  return params;
}
