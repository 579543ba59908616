import type { IncomingMessage, ServerResponse } from 'node:http';
import { runChecks } from '@acs/http';
import type { GatewayClient } from '../gateway-client/gateway-client.js';
import { sendJson } from '../http/send.js';

export interface FixedRouteDeps {
  gateway: Pick<GatewayClient, 'gatewayReadiness'>;
  stylesheet: Buffer;
  icon: Buffer;
}

function sendAsset(res: ServerResponse, type: string, body: Buffer): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', body.length);
  res.setHeader('Cache-Control', 'public, max-age=300');
  res.end(body);
}

/**
 * Answers that need no session: the probes (as every service has them), the stylesheet and the icon.
 * Returns false when the path is not one of them.
 */
export function createFixedRoutes({ gateway, stylesheet, icon }: FixedRouteDeps) {
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
        sendAsset(res, 'text/css; charset=utf-8', stylesheet);
        return true;
      case '/assets/icon.svg':
      case '/favicon.ico':
        sendAsset(res, 'image/svg+xml', icon);
        return true;
      default:
        return false;
    }
  };
}
