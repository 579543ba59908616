import type { IncomingMessage, ServerResponse } from 'node:http';
import { runChecks } from '@acs/http';
import type { GatewayClient } from '../gateway-client/gateway-client.js';
import { sendJson } from '../http/send.js';

export interface FixedRouteDeps {
  gateway: Pick<GatewayClient, 'gatewayReadiness'>;
  stylesheet: Buffer;
}

/**
 * Answers that need no session: the probes (as every service has them) and the stylesheet.
 * Returns false when the path is not one of them.
 */
export function createFixedRoutes({ gateway, stylesheet }: FixedRouteDeps) {
  return async function serveFixed(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    switch (path) {
      case '/healthz':
        sendJson(res, 200, { status: 'ok' });
        return true;
      case '/readyz': {
        // The dashboard is useful only while the gateway is: it is ready when the gateway says it is.
        const readiness = await runChecks({ gateway: () => gateway.gatewayReadiness() });
        sendJson(res, readiness.ready ? 200 : 503, readiness);
        return true;
      }
      case '/assets/dashboard.css':
        res.statusCode = 200;
        res.setHeader('Content-Type', 'text/css; charset=utf-8');
        res.setHeader('Content-Length', stylesheet.length);
        res.setHeader('Cache-Control', 'public, max-age=300');
        res.end(stylesheet);
        return true;
      default:
        return false;
    }
  };
}
