import type { RequestListener } from 'node:http';
import { notFound } from '@acs/errors';
import { pickRequestId } from '@acs/http';
import type { Logger } from '@acs/logger';
import { METRICS_PATH, sendMetrics, type Registry } from '@acs/metrics';
import { sendError } from '../respond.js';

/**
 * The scrape endpoint, on its own port (METRICS_PORT) so it is never reachable through the public
 * one (ARCHITECTURE.md, decision 8): only GET /metrics; anything else is 404 in the error shape.
 */
export function createMetricsListener(registry: Registry, logger: Logger): RequestListener {
  const reportFailure = (err: unknown): void => logger.error({ err }, 'metrics could not be collected');
  return (req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    if (path === METRICS_PATH && req.method === 'GET') {
      void sendMetrics(registry, res, reportFailure);
      return;
    }
    sendError(res, notFound(`No route for ${req.method} ${path}`), pickRequestId(req.headers['x-request-id']));
  };
}
