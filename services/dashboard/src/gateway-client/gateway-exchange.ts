import type { Dispatcher, Pool } from 'undici';
import type { Logger } from '@acs/logger';
import { GatewayError } from './gateway-error.js';

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

/** What every exchange goes through: the connections to the gateway, the dashboard's own key, the time allowed. */
export interface ExchangeDeps {
  pool: Pool;
  apiKey: string;
  apiSecret: string;
  timeoutMs: number;
}

/** The gateway's answer as it came: status, headers, and the body as JSON (null when empty or not JSON). */
export interface GatewayAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/** The headers of one call: the dashboard's key on every one, the user's token and the rest where the call has them. */
export function requestHeaders(
  call: GatewayCall,
  { apiKey, apiSecret }: Pick<ExchangeDeps, 'apiKey' | 'apiSecret'>,
): Record<string, string> {
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
  return headers;
}

function jsonOf(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null;
  }
}

/** One request to the gateway and its answer, whatever the status; a gateway out of reach is a GatewayError 503. */
export async function exchange(deps: ExchangeDeps, call: GatewayCall): Promise<GatewayAnswer> {
  const headers = requestHeaders(call, deps);
  let response: Dispatcher.ResponseData;
  try {
    response = await deps.pool.request({
      method: call.method,
      path: call.path,
      headers,
      body: call.body === undefined ? null : JSON.stringify(call.body),
      signal: AbortSignal.timeout(deps.timeoutMs),
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
  return { status: response.statusCode, headers: response.headers, json: jsonOf(text) };
}
