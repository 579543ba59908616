import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * What the gateway tells a service about the caller. Services trust it only when the signature,
 * made with the internal secret shared by the gateway and the services, matches.
 */
export interface InternalContext {
  requestId: string;
  /** The API key's record id; null when the gateway calls on its own behalf (key lookups, readiness). */
  keyId: string | null;
  scopes: string[];
  /** Present on routes that need a user (layer 2). */
  userId?: number;
  /** The user's effective role at this request (0-3), computed by the gateway from current state. */
  role?: number;
  /** The plan type of the user's active subscription (0 when none). */
  planType?: number;
  /** The client's address as the gateway saw it (for per-address throttling). */
  clientIp?: string;
  /** Unix seconds after which a captured header is useless. */
  expiresAt: number;
}

export const CONTEXT_HEADER = 'x-acs-context';
export const SIGNATURE_HEADER = 'x-acs-signature';

/** Headers a client must never be able to set: the gateway strips them before adding its own. */
export const INTERNAL_HEADERS = [CONTEXT_HEADER, SIGNATURE_HEADER] as const;

const CONTEXT_LIFETIME_SECONDS = 60;

/*
 * Every proxied request is signed by the gateway and verified by a service, so the secret is turned into a
 * KeyObject once rather than on each call (a process holds one internal secret; a different one replaces it).
 */
let cachedKey: { secret: string; key: KeyObject } | null = null;
function macKey(secret: string): KeyObject {
  if (cachedKey?.secret !== secret) cachedKey = { secret, key: createSecretKey(Buffer.from(secret, 'utf8')) };
  return cachedKey.key;
}

// Method and URL are signed too, so a captured context cannot be replayed against another endpoint.
function mac(secret: string, method: string, url: string, encoded: string): Buffer {
  return createHmac('sha256', macKey(secret)).update(`${method}\n${url}\n${encoded}`).digest();
}

export interface SignedContext {
  context: string;
  signature: string;
}

export function signContext(
  secret: string,
  method: string,
  url: string,
  context: Omit<InternalContext, 'expiresAt'>,
  nowSeconds = Math.floor(Date.now() / 1000),
): SignedContext {
  // JSON.stringify(context) plus one appended member: cheaper than copying the object with a spread on the
  // gateway's hot path. The context always has requestId, so the object is never empty; a later duplicate key
  // wins in JSON.parse, so a stray expiresAt in `context` cannot outlive the one set here.
  const json = JSON.stringify(context);
  const withExpiry = `${json.slice(0, -1)},"expiresAt":${nowSeconds + CONTEXT_LIFETIME_SECONDS}}`;
  const encoded = Buffer.from(withExpiry, 'utf8').toString('base64url');
  return { context: encoded, signature: mac(secret, method, url, encoded).toString('base64url') };
}

export function verifyContext(
  secret: string,
  method: string,
  url: string,
  encoded: string | undefined,
  signature: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
): InternalContext | null {
  if (!encoded || !signature) return null;
  const expected = mac(secret, method, url, encoded);
  const presented = Buffer.from(signature, 'base64url');
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return null;
  let context: InternalContext;
  try {
    context = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as InternalContext;
  } catch {
    return null;
  }
  if (typeof context.expiresAt !== 'number' || context.expiresAt < nowSeconds) return null;
  return context;
}
