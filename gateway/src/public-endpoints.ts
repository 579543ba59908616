import { cacheReadinessCheck, type Cache } from '@acs/cache';
import { JWKS_PATH, SECRET_SCANNING_REPORT_PATH } from '@acs/contracts';
import { unavailable } from '@acs/errors';
import type { JwksStore } from './auth/jwks-store.js';
import type { Readiness, ReadinessCheck } from '@acs/http';
import type { PublicEndpoint } from './handler.js';
import type { Upstreams } from './proxy/upstreams.js';
import { sendError, sendJson } from './respond.js';

const PROBE_TIMEOUT_MS = 2_000;

/** An upstream is ready when its own /readyz says so (database reachable, schema migrated). */
function upstreamCheck(upstreams: Upstreams, name: string): ReadinessCheck {
  const upstream = [...upstreams.values()].find((u) => u.name === name)!;
  return async () => {
    const response = await upstream.pool.request({
      path: '/readyz',
      method: 'GET',
      headersTimeout: PROBE_TIMEOUT_MS,
      bodyTimeout: PROBE_TIMEOUT_MS,
    });
    const body = (await response.body.json().catch(() => null)) as { checks?: Record<string, string> } | null;
    if (response.statusCode === 200) return 'ok';
    const failing = Object.entries(body?.checks ?? {})
      .filter(([, v]) => v !== 'ok')
      .map(([k, v]) => `${k}: ${v}`);
    return `not ready (${failing.join('; ') || response.statusCode})`;
  };
}

/** Every check behind the gateway's readiness: the cache and each deployed upstream. */
export function readinessChecks(upstreams: Upstreams, cache: Cache): Record<string, ReadinessCheck> {
  const checks: Record<string, ReadinessCheck> = cacheReadinessCheck(cache);
  for (const name of upstreams.keys()) checks[name] = upstreamCheck(upstreams, name);
  return checks;
}

/**
 * /readyz here is public (the Internet reaches it): ready or not, nothing else. What failed (raw
 * errors with internal addresses, database and DNS messages) is on the metrics listener's /readyz
 * (METRICS_PORT, cluster-internal), from the same cached round of checks.
 */
export function createPublicEndpoints(options: {
  readiness: () => Promise<Readiness>;
  jwks: JwksStore | null;
  openApiDocument: Record<string, unknown>;
  /** The leak report relay (POST, no API key), to the keys service. */
  leakReports: PublicEndpoint;
}): Map<string, PublicEndpoint> {
  const openApiJson = JSON.stringify(options.openApiDocument);

  const jwksEndpoint: PublicEndpoint = async (_req, res, requestId) => {
    if (!options.jwks) return sendError(res, unavailable('The identity service is not deployed yet'), requestId);
    try {
      const json = await options.jwks.publicJson();
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(json),
        'x-request-id': requestId,
        'cache-control': 'public, max-age=300',
      });
      res.end(json);
    } catch {
      sendError(res, unavailable('The identity service keys cannot be fetched'), requestId);
    }
  };

  return new Map<string, PublicEndpoint>([
    [JWKS_PATH, jwksEndpoint],
    [`POST ${SECRET_SCANNING_REPORT_PATH}`, options.leakReports],
    ['/healthz', (_req, res, requestId) => sendJson(res, 200, { status: 'ok' }, requestId)],
    [
      '/readyz',
      async (_req, res, requestId) => {
        const { ready } = await options.readiness();
        sendJson(res, ready ? 200 : 503, { ready }, requestId);
      },
    ],
    [
      '/openapi.json',
      (_req, res, requestId) => {
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(openApiJson),
          'x-request-id': requestId,
          'cache-control': 'public, max-age=300',
        });
        res.end(openApiJson);
      },
    ],
  ]);
}
