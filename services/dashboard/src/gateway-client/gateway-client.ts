import { Pool } from 'undici';
import type { z } from 'zod';
import { SPEC_ERRORS } from '@acs/errors';
import { GatewayError, gatewayErrorBodySchema } from './gateway-error.js';
import { exchange, type GatewayAnswer, type GatewayCall } from './gateway-exchange.js';

export type { GatewayCall } from './gateway-exchange.js';

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

/** A 2xx answer's body parsed with `schema`; any other answer throws as a GatewayError, logged when it is not the user's. */
function checkedAnswer<S extends z.ZodType>(
  schema: S,
  call: GatewayCall,
  { status, headers, json }: GatewayAnswer,
): { status: number; data: z.infer<S> } {
  if (status >= 200 && status < 300) {
    const parsed = schema.safeParse(json);
    if (parsed.success) return { status, data: parsed.data };
    call.log.error({ method: call.method, path: call.path, status }, 'gateway answered a body that does not match the contract');
    throw new GatewayError(502, null);
  }
  const body = gatewayErrorBodySchema.safeParse(json);
  const error = new GatewayError(status, body.success ? body.data : null, retryAfterSeconds(headers['retry-after']));
  if (isOwnKeyRefused(error)) call.log.error({ method: call.method, path: call.path }, "the gateway refused the dashboard's own API key");
  else if (status >= 500) call.log.warn({ method: call.method, path: call.path, status }, 'gateway failed');
  throw error;
}

async function readinessOf(pool: Pool, timeoutMs: number): Promise<string> {
  // The dashboard's /readyz is public: a raw connection error would name the gateway's internal address.
  try {
    const response = await pool.request({ method: 'GET', path: '/readyz', signal: AbortSignal.timeout(Math.min(timeoutMs, 3000)) });
    await response.body.dump();
    return response.statusCode === 200 ? 'ok' : `gateway /readyz answered ${response.statusCode}`;
  } catch {
    return 'gateway not reachable';
  }
}

/** The dashboard's only way out: HTTP to the public gateway with its own key, like any client application. */
export function createGatewayClient({ gatewayUrl, apiKey, apiSecret, timeoutMs = 10_000 }: GatewayClientOptions): GatewayClient {
  const pool = new Pool(new URL(gatewayUrl).origin, {
    connections: 32,
    connectTimeout: timeoutMs,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4_000,
  });
  const deps = { pool, apiKey, apiSecret, timeoutMs };
  return {
    send: async (schema, call) => checkedAnswer(schema, call, await exchange(deps, call)),
    gatewayReadiness: () => readinessOf(pool, timeoutMs),
    close: () => pool.close(),
  };
}
