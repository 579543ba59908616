import { type Dispatcher, Pool } from 'undici';
import type { z } from 'zod';
import type { Logger } from '@acs/logger';
import { SPEC_ERRORS } from '@acs/errors';
import { GatewayError, gatewayErrorBodySchema } from './gateway-error.js';

export interface GatewayCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  /** The signed-in user's JWT, for the routes that act on their data. */
  token?: string | null;
  body?: unknown;
  idempotencyKey?: string;
  /** The browser's address; the gateway puts it in the caller context for per-address throttling. */
  clientAddress?: string;
  /** The browser's User-Agent: identity labels the session a sign-in opens with it. */
  userAgent?: string;
  /** Ours, passed on so the gateway's and the services' log lines carry it too. */
  requestId: string;
  log: Logger;
}

export interface GatewayClient {
  /** A 2xx answer parsed with `schema`; anything else throws GatewayError. */
  send<S extends z.ZodType>(schema: S, call: GatewayCall): Promise<{ status: number; data: z.infer<S> }>;
  /** For /readyz: "ok" when the gateway's own /readyz answers 200. */
  gatewayReadiness(): Promise<string>;
  close(): Promise<void>;
}

export interface GatewayClientOptions {
  gatewayUrl: string;
  apiKey: string;
  apiSecret: string;
  timeoutMs?: number;
}

function retryAfterSeconds(header: string | string[] | undefined): number | null {
  if (typeof header !== 'string') return null;
  if (/^\d+$/.test(header)) return Number(header);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** The spec's 401: the gateway did not accept the dashboard's key (a failed login is a different 401). */
export const isOwnKeyRefused = (error: GatewayError): boolean =>
  error.status === 401 && error.body?.error === SPEC_ERRORS.missingApiKey.error;

/** The dashboard's only way out: HTTP to the public gateway with its own key, like any client application. */
export function createGatewayClient({ gatewayUrl, apiKey, apiSecret, timeoutMs = 10_000 }: GatewayClientOptions): GatewayClient {
  const pool = new Pool(new URL(gatewayUrl).origin, {
    connections: 32,
    connectTimeout: timeoutMs,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4_000,
  });

  async function exchange(
    call: GatewayCall,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; json: unknown }> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'x-api-key': apiKey,
      'x-api-secret': apiSecret,
      'x-request-id': call.requestId,
    };
    if (call.token) headers.authorization = `Bearer ${call.token}`;
    if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
    // One address, ours to vouch for: never the browser's own X-Forwarded-For passed along.
    if (call.clientAddress) headers['x-forwarded-for'] = call.clientAddress;
    // The browser's, so the session a sign-in opens is named by it; otherwise undici's own.
    if (call.userAgent) headers['user-agent'] = call.userAgent;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    let response: Dispatcher.ResponseData;
    try {
      response = await pool.request({
        method: call.method,
        path: call.path,
        headers,
        body: call.body === undefined ? null : JSON.stringify(call.body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      // Log the route, never the headers: they hold our secret and the user's token.
      call.log.warn(
        { err: { name: (err as Error).name, message: (err as Error).message }, method: call.method, path: call.path },
        'gateway not reachable',
      );
      throw new GatewayError(503, null, null, { cause: err });
    }
    const text = await response.body.text().catch(() => '');
    let json: unknown = null;
    try {
      json = text ? (JSON.parse(text) as unknown) : null;
    } catch {
      json = null;
    }
    return { status: response.statusCode, headers: response.headers, json };
  }

  return {
    async send(schema, call) {
      const { status, headers, json } = await exchange(call);
      if (status >= 200 && status < 300) {
        const parsed = schema.safeParse(json);
        if (parsed.success) return { status, data: parsed.data };
        call.log.error({ method: call.method, path: call.path, status }, 'gateway answered a body that does not match the contract');
        throw new GatewayError(502, null);
      }
      const body = gatewayErrorBodySchema.safeParse(json);
      const error = new GatewayError(status, body.success ? body.data : null, retryAfterSeconds(headers['retry-after']));
      if (isOwnKeyRefused(error))
        call.log.error({ method: call.method, path: call.path }, "the gateway refused the dashboard's own API key");
      else if (status >= 500) call.log.warn({ method: call.method, path: call.path, status }, 'gateway failed');
      throw error;
    },
    async gatewayReadiness() {
      // The dashboard's /readyz is public: a raw connection error would name the gateway's internal address.
      try {
        const response = await pool.request({ method: 'GET', path: '/readyz', signal: AbortSignal.timeout(Math.min(timeoutMs, 3000)) });
        await response.body.dump();
        return response.statusCode === 200 ? 'ok' : `gateway /readyz answered ${response.statusCode}`;
      } catch {
        return 'gateway not reachable';
      }
    },
    close: () => pool.close(),
  };
}
