import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { isBlockedAddress } from '../domain/address-policy.js';
import type { ResolveHost } from '../domain/url-policy.js';
import { safeLookup } from './safe-lookup.js';

export interface PostLimits {
  /** Connect plus the whole answer. */
  timeoutMs: number;
  /** The most of the answer read; the connection is cut beyond it. */
  maxResponseBytes: number;
  allowPrivate: boolean;
}

/** What one attempt got: the status when an answer came, and an error class when the attempt failed. */
export interface PostResult {
  status: number | null;
  durationMs: number;
  /** null when the answer was a 2xx; else timeout, connection_refused, blocked_address, redirect, http_status, ... */
  error: string | null;
}

/**
 * The dispatcher every webhook goes through: it resolves names itself and connects only to addresses
 * the policy allows (safe-lookup.ts), unless private URLs are allowed. Keep-alive per origin, so a
 * busy endpoint is not a TLS handshake per delivery.
 */
export function webhookAgent(resolve: ResolveHost, limits: PostLimits, maxInFlight: number): Agent {
  return new Agent({
    connect: { timeout: limits.timeoutMs, ...(limits.allowPrivate ? {} : { lookup: safeLookup(resolve) }) },
    headersTimeout: limits.timeoutMs,
    bodyTimeout: limits.timeoutMs,
    keepAliveTimeout: 4_000,
    // Several endpoints may share an origin (one receiver, many paths): as many as the sender may have in flight.
    connections: maxInFlight,
  });
}

const ERROR_CLASSES: Record<string, string> = {
  EBLOCKEDADDRESS: 'blocked_address',
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  ENOTFOUND: 'dns_failure',
  EAI_AGAIN: 'dns_failure',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  UND_ERR_SOCKET: 'connection_reset',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
};

/** A short, stable name for why an attempt failed: the delivery log shows it, never a stack or the answer's text. */
function errorClass(err: unknown): string {
  for (let cause: unknown = err, depth = 0; cause && depth < 4; cause = (cause as { cause?: unknown }).cause, depth++) {
    const { code, name } = cause as { code?: string; name?: string };
    if (name === 'TimeoutError' || name === 'AbortError') return 'timeout';
    if (code && ERROR_CLASSES[code]) return ERROR_CLASSES[code];
    if (code && /CERT|SSL|TLS/.test(code)) return 'tls_error';
  }
  return 'network_error';
}

/** Refusals decided without dialling: a URL the policy no longer allows (the deployment's setting changed, or an IP literal). */
function refusalOf(url: URL, limits: PostLimits): string | null {
  if (limits.allowPrivate) return null;
  if (url.protocol !== 'https:') return 'blocked_url';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // The lookup is not called for an address written in the URL: checked here instead.
  return isIP(host) !== 0 && isBlockedAddress(host) ? 'blocked_address' : null;
}

/** Reads at most `limit` bytes of the answer and drops the rest with the connection; true when it was longer. */
async function drainUpTo(body: AsyncIterable<Buffer> & { destroy(): void }, limit: number): Promise<boolean> {
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > limit) {
      body.destroy();
      return true;
    }
  }
  return false;
}

/**
 * One POST of a webhook: no redirect followed (a 3xx is a failure), the whole attempt within the
 * timeout, the answer read up to the cap. `signal` aborts it from outside (the sender stopping).
 */
export async function postWebhook(
  agent: Agent,
  target: string,
  headers: Record<string, string>,
  body: string,
  limits: PostLimits,
  signal?: AbortSignal,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(target);
  const refused = refusalOf(url, limits);
  if (refused) return { status: null, durationMs: 0, error: refused };
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  try {
    const answer = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'acs-webhooks/1' },
      body,
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
    });
    const tooLarge = await drainUpTo(answer.body, limits.maxResponseBytes).catch(() => false);
    const { statusCode: status } = answer;
    if (status >= 200 && status < 300) return { status, durationMs: elapsed(), error: null };
    const error = status >= 300 && status < 400 ? 'redirect' : tooLarge ? 'response_too_large' : 'http_status';
    return { status, durationMs: elapsed(), error };
  } catch (err) {
    return { status: null, durationMs: elapsed(), error: errorClass(err) };
  }
}
