import type { RequestListener } from 'node:http';
import { notFound } from '@acs/errors';
import { pickRequestId, type Readiness } from '@acs/http';
import type { Logger } from '@acs/logger';
import { METRICS_PATH, sendMetrics, type Registry } from '@acs/metrics';
import { sendError, sendJson } from '../respond.js';

/**
 * The scrape endpoint, on its own port (METRICS_PORT) so it is never reachable through the public
 * one (docs/architecture.md, decision 8): GET /metrics, and GET /readyz with what each check said (the
 * public /readyz says only ready or not); anything else is 404 in the error shape.
 */
export function createMetricsListener(registry: Registry, logger: Logger, readiness: () => Promise<Readiness>): RequestListener {
  const reportFailure = (err: unknown): void => logger.error({ err }, 'metrics could not be collected');
  return (req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    if (path === METRICS_PATH && req.method === 'GET') {
      void sendMetrics(registry, res, reportFailure);
      return;
    }
    const requestId = pickRequestId(req.headers['x-request-id']);
    if (path === '/readyz' && req.method === 'GET') {
      readiness().then(
        (report) => sendJson(res, report.ready ? 200 : 503, report, requestId),
        (err: unknown) => logger.error({ err }, 'readiness could not be checked'),
      );
      return;
    }
    sendError(res, notFound(`No route for ${req.method} ${path}`), requestId);
  };
}
