import type { Cache } from '@acs/cache';
import { JWKS_PATH } from '@acs/contracts';
import { unavailable } from '@acs/errors';
import type { JwksStore } from './auth/jwks-store.js';
import { runChecks, type ReadinessCheck } from '@acs/http';
import type { PublicEndpoint } from './handler.js';
import type { Upstreams } from './proxy/upstreams.js';
import { sendError, sendJson } from './respond.js';

const PROBE_TIMEOUT_MS = 2_000;

/** An upstream is ready when its own /readyz says so (database reachable, schema migrated). */
function upstreamCheck(upstreams: Upstreams, name: string): ReadinessCheck {
  const upstream = [...upstreams.values()].find((u) => u.name === name)!;
  return async () => {
    const response = await upstream.pool.request({ path: '/readyz', method: 'GET', headersTimeout: PROBE_TIMEOUT_MS, bodyTimeout: PROBE_TIMEOUT_MS });
    const body = (await response.body.json().catch(() => null)) as { checks?: Record<string, string> } | null;
    if (response.statusCode === 200) return 'ok';
    const failing = Object.entries(body?.checks ?? {}).filter(([, v]) => v !== 'ok').map(([k, v]) => `${k}: ${v}`);
    return `not ready (${failing.join('; ') || response.statusCode})`;
  };
}

export function createPublicEndpoints(options: { upstreams: Upstreams; cache: Cache; jwks: JwksStore | null; openApiDocument: Record<string, unknown> }): Map<string, PublicEndpoint> {
  const { upstreams, cache } = options;
  const openApiJson = JSON.stringify(options.openApiDocument);
  const checks: Record<string, ReadinessCheck> = { cache: async () => ((await cache.ping()) ? 'ok' : 'not reachable') };
  for (const name of upstreams.keys()) checks[name] = upstreamCheck(upstreams, name);

  const jwksEndpoint: PublicEndpoint = async (_req, res, requestId) => {
    if (!options.jwks) return sendError(res, unavailable('The identity service is not deployed yet'), requestId);
    try {
      const json = await options.jwks.publicJson();
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json), 'x-request-id': requestId, 'cache-control': 'public, max-age=300' });
      res.end(json);
    } catch {
      sendError(res, unavailable('The identity service keys cannot be fetched'), requestId);
    }
  };

  return new Map<string, PublicEndpoint>([
    [JWKS_PATH, jwksEndpoint],
    ['/healthz', (_req, res, requestId) => sendJson(res, 200, { status: 'ok' }, requestId)],
    [
      '/readyz',
      async (_req, res, requestId) => {
        const readiness = await runChecks(checks);
        sendJson(res, readiness.ready ? 200 : 503, readiness, requestId);
      },
    ],
    [
      '/openapi.json',
      (_req, res, requestId) => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(openApiJson), 'x-request-id': requestId, 'cache-control': 'public, max-age=300' });
        res.end(openApiJson);
      },
    ],
  ]);
}
