import { Counter, FlushedCounter, HttpMetrics, UNMATCHED_ROUTE, type CounterSeries, type Registry, type RouteRecorder } from '@acs/metrics';
import type { RouteSpec } from '../routing/route-table.js';

/** Why layer 1 or 2 refused a request: 401 (key or secret), 403 (the key's IP allow-list), 403 (scope), 403 (user JWT or role). */
export type AuthRejection = 'api_key' | 'ip' | 'scope' | 'user';

const AUTH_REJECTIONS_TOTAL = 'gateway_auth_rejections_total';
const UPSTREAM_FAILURES_TOTAL = 'gateway_upstream_failures_total';
const CACHE_FALLBACKS_TOTAL = 'gateway_cache_fallbacks_total';
const RATE_LIMITED_TOTAL = 'gateway_rate_limited_total';

/**
 * Everything the gateway counts. Built for the per-request path (docs/performance.md): route
 * recorders are made at start for every route of the table, the counters a request may touch are
 * FlushedCounter series (a field increment), and no label string is built per request.
 */
export class GatewayMetrics {
  readonly http: HttpMetrics;
  private readonly byRoute = new Map<RouteSpec, RouteRecorder>();
  private readonly rejections: Record<AuthRejection, CounterSeries<'reason'>>;
  private readonly fallbacks: CounterSeries<never>;
  private readonly upstreamFailures: Counter<'upstream' | 'status'>;
  private readonly limited = new Map<RouteSpec, CounterSeries<'method' | 'route'>>();

  constructor(registry: Registry, routes: readonly RouteSpec[]) {
    this.http = new HttpMetrics(registry);
    for (const route of routes) this.byRoute.set(route, this.http.recorder(route.method, route.path));
    const rejections = new FlushedCounter({
      registry,
      name: AUTH_REJECTIONS_TOTAL,
      help: 'Requests refused by authentication: api_key (401), ip (403, the key allow-list), scope (403), user (403, JWT or role)',
      labelNames: ['reason'] as const,
    });
    this.rejections = {
      api_key: rejections.series({ reason: 'api_key' }),
      ip: rejections.series({ reason: 'ip' }),
      scope: rejections.series({ reason: 'scope' }),
      user: rejections.series({ reason: 'user' }),
    };
    const fallbacks = new FlushedCounter({
      registry,
      name: CACHE_FALLBACKS_TOTAL,
      help: 'Requests whose key or authorization record was asked of the owning service because Redis was unavailable',
      labelNames: [] as const,
    });
    this.fallbacks = fallbacks.series({});
    const limited = new FlushedCounter({
      registry,
      name: RATE_LIMITED_TOTAL,
      help: "Requests refused with 429 because the API key's rate limit was reached, by route",
      labelNames: ['method', 'route'] as const,
    });
    for (const route of routes) this.limited.set(route, limited.series({ method: route.method, route: route.path }));
    // Failures only: not on the path of a request that succeeds, so prom-client's own inc() is fine here.
    this.upstreamFailures = new Counter({
      name: UPSTREAM_FAILURES_TOTAL,
      help: 'Forwarded calls that failed (502 bad answer, 503 unreachable, 504 timeout) and requests for a service not deployed (503)',
      labelNames: ['upstream', 'status'],
      registers: [registry],
    });
  }

  /** The recorder of a route of the table (made at start). */
  route(route: RouteSpec): RouteRecorder {
    return this.byRoute.get(route) ?? this.http.recorder(route.method, route.path);
  }

  /** The recorder of a path outside /api the gateway answers itself (/healthz, /readyz, /openapi.json, JWKS). */
  publicEndpoint(method: string, path: string): RouteRecorder {
    return this.http.recorder(method, path);
  }

  /** Unknown paths and wrong methods: one label value, whatever the URL. */
  unmatched(method: string): RouteRecorder {
    return this.http.recorder(method, UNMATCHED_ROUTE);
  }

  authRejected(reason: AuthRejection): void {
    this.rejections[reason].inc();
  }

  upstreamFailed(upstream: string, status: number): void {
    this.upstreamFailures.inc({ upstream, status: String(status) });
  }

  rateLimited(route: RouteSpec): void {
    this.limited.get(route)?.inc();
  }

  cacheFellBack(): void {
    this.fallbacks.inc();
  }
}
