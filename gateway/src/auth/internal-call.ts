import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { signContext } from '@acs/auth';
import type { Upstream } from '../proxy/upstreams.js';
import { upstreamError } from '../proxy/upstream-errors.js';

/**
 * The gateway calling a service on its own behalf (key lookups, authorization records, JWKS),
 * signed like a forwarded request. Any failure is an upstream error (502/503/504), never a
 * silent "not found".
 */
export async function internalCall<S extends z.ZodType>(
  upstream: Upstream,
  internalSecret: string,
  method: 'GET' | 'POST',
  path: string,
  requestId: string,
  responseSchema: S,
  body?: unknown,
): Promise<z.infer<S>> {
  const { status, json } = await internalRequest(upstream, internalSecret, method, path, requestId, body);
  if (status !== 200) throw upstreamError(upstream.name, new Error(`${path} answered ${status}`));
  const parsed = responseSchema.safeParse(json);
  if (!parsed.success) throw upstreamError(upstream.name, new Error(`${path} answered an unexpected body`));
  return parsed.data;
}

/** The signed call itself, answering whatever status the service gave (a relayed request passes its 4xx on). */
export async function internalRequest(
  upstream: Upstream,
  internalSecret: string,
  method: 'GET' | 'POST',
  path: string,
  requestId: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const { context, signature } = signContext(internalSecret, upstream.name, method, path, { requestId, keyId: null, scopes: [] });
  const headers: Record<string, string> = { 'x-request-id': requestId, 'x-acs-context': context, 'x-acs-signature': signature };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Dispatcher.ResponseData;
  try {
    response = await upstream.pool.request({ path, method, headers, body: body === undefined ? null : JSON.stringify(body) });
  } catch (err) {
    throw upstreamError(upstream.name, err);
  }
  const json: unknown = await response.body.json().catch(() => null);
  return { status: response.statusCode, json };
}
