import { HmacSha256 } from './hmac-sha256.js';

/**
 * What the gateway tells a service about the caller. A service trusts it only when the signature,
 * made with that service's own internal key (which the gateway holds for it), matches.
 */
export interface InternalContext {
  requestId: string;
  /** The API key's record id; null when the gateway calls on its own behalf (key lookups, readiness). */
  keyId: string | null;
  scopes: string[];
  /** Present on routes that need a user (layer 2). */
  userId?: number;
  /** True while the user's e-mail address is not verified (keys may require it: REQUIRE_VERIFIED_EMAIL_FOR_KEYS). */
  emailUnverified?: boolean;
  /** The session of the user's token (its `sid` claim), when it names one. */
  sessionId?: string;
  /** The user's effective role at this request (0-3), computed by the gateway from current state. */
  role?: number;
  /** The plan type of the user's active subscription (0 when none). */
  planType?: number;
  /** The client's address as the gateway saw it (for per-address throttling). */
  clientIp?: string;
  /**
   * W3C trace context of the gateway's span (README, "Tracing"), present when the gateway traces. Inside
   * what is signed, not beside it: a service continues only a trace the gateway vouched for, and a
   * captured request replayed with another traceparent does not verify.
   */
  traceparent?: string;
  tracestate?: string;
  /** Unix seconds after which a captured header is useless. */
  expiresAt: number;
}

export const CONTEXT_HEADER = 'x-acs-context';
export const SIGNATURE_HEADER = 'x-acs-signature';

/**
 * How long a captured context stays usable. Short: a context is signed just before its request is
 * sent and checked when the request arrives (headers first, before any body), so it needs only
 * the time a request waits for a pooled connection plus clock skew between machines.
 */
export const CONTEXT_LIFETIME_SECONDS = 15;

/*
 * Every proxied request is signed by the gateway and verified by a service, so a key's padded blocks are made
 * once per key, not on each call. A process holds a few keys (the gateway one per upstream, a service its own
 * and, during a rotation, the one it replaces), each kept for the process's life: the map never grows past them.
 */
const macs = new Map<string, HmacSha256>();
function macFor(secret: string): HmacSha256 {
  let mac = macs.get(secret);
  if (mac === undefined) {
    mac = new HmacSha256(secret);
    macs.set(secret, mac);
  }
  return mac;
}

/**
 * The keys a service accepts a context under: its own, or during a rotation the new one and the one it
 * replaces (tried in that order, so the usual request costs one HMAC). Each service has keys of its own,
 * which only the gateway also holds: a service that is broken into cannot sign for another.
 */
export type VerificationKeys = string | readonly string[];

/*
 * The target service, method and URL are signed too, so a captured context cannot be replayed
 * against another endpoint or another service (even one with the same path). The target is not
 * sent: each service verifies with its own name. Not signed: the body (the gateway streams bodies
 * of up to 16 MiB, chunked ones included; hashing them would mean buffering each one before it is
 * forwarded). README, "Security".
 */
const signedMessage = (audience: string, method: string, url: string, encoded: string): string =>
  `${audience}\n${method}\n${url}\n${encoded}`;

/** base64url of a string's UTF-8 bytes through one reused buffer: Buffer.from would allocate on every request. */
const encodeScratch = Buffer.alloc(4096);
function toBase64Url(text: string): string {
  if (text.length * 3 > encodeScratch.length) return Buffer.from(text, 'utf8').toString('base64url');
  return encodeScratch.toString('base64url', 0, encodeScratch.write(text, 0, 'utf8'));
}

/** JSON of each list of scopes, made once per list: the gateway passes the parsed key record's own array every time. */
const scopesJson = new WeakMap<readonly string[], string>();
function scopesJsonOf(scopes: readonly string[]): string {
  let json = scopesJson.get(scopes);
  if (json === undefined) {
    json = JSON.stringify(scopes);
    scopesJson.set(scopes, json);
  }
  return json;
}

/**
 * Every member contextJson writes. Typed against InternalContext, so a member added there does not compile until it
 * is added here, and the test that builds a context from this list fails until contextJson writes it.
 */
export const CONTEXT_MEMBERS: Readonly<Record<keyof InternalContext, true>> = {
  requestId: true,
  keyId: true,
  scopes: true,
  userId: true,
  emailUnverified: true,
  sessionId: true,
  role: true,
  planType: true,
  clientIp: true,
  traceparent: true,
  tracestate: true,
  expiresAt: true,
};

/**
 * The context and its expiry as JSON, equal to what JSON.stringify makes of them once parsed (an absent member is left
 * out, each value encoded by JSON.stringify's own rules), without JSON.stringify walking the object: on the gateway's
 * hot path that saves about 0.36 µs a request (an in-process A/B, docs/performance.md). Strings still go through
 * JSON.stringify (its escaping); the scopes, once per list.
 */
export function contextJson(context: Omit<InternalContext, 'expiresAt'>, expiresAt: number): string {
  const { keyId } = context;
  let json = `{"requestId":${JSON.stringify(context.requestId)},"keyId":${keyId === null ? 'null' : JSON.stringify(keyId)},"scopes":${scopesJsonOf(context.scopes)}`;
  if (context.userId !== undefined) json += `,"userId":${JSON.stringify(context.userId)}`;
  if (context.emailUnverified !== undefined) json += `,"emailUnverified":${JSON.stringify(context.emailUnverified)}`;
  if (context.sessionId !== undefined) json += `,"sessionId":${JSON.stringify(context.sessionId)}`;
  if (context.role !== undefined) json += `,"role":${JSON.stringify(context.role)}`;
  if (context.planType !== undefined) json += `,"planType":${JSON.stringify(context.planType)}`;
  if (context.clientIp !== undefined) json += `,"clientIp":${JSON.stringify(context.clientIp)}`;
  if (context.traceparent !== undefined) json += `,"traceparent":${JSON.stringify(context.traceparent)}`;
  if (context.tracestate !== undefined) json += `,"tracestate":${JSON.stringify(context.tracestate)}`;
  return `${json},"expiresAt":${expiresAt}}`;
}

export interface SignedContext {
  context: string;
  signature: string;
}

/** `audience`: the name of the service the request is for (the gateway's upstream name: keys, identity, catalog, device, billing). */
export function signContext(
  secret: string,
  audience: string,
  method: string,
  url: string,
  context: Omit<InternalContext, 'expiresAt'>,
  nowSeconds = Math.floor(Date.now() / 1000),
): SignedContext {
  // A stray expiresAt in `context` is not written: the one set here is the only one.
  const encoded = toBase64Url(contextJson(context, nowSeconds + CONTEXT_LIFETIME_SECONDS));
  return { context: encoded, signature: macFor(secret).sign(signedMessage(audience, method, url, encoded)) };
}

/** `audience`: this service's own name; a context signed for another service does not verify. */
export function verifyContext(
  keys: VerificationKeys,
  audience: string,
  method: string,
  url: string,
  encoded: string | undefined,
  signature: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
): InternalContext | null {
  if (!encoded || !signature) return null;
  const message = signedMessage(audience, method, url, encoded);
  if (typeof keys === 'string' ? !macFor(keys).verify(message, signature) : !keys.some((key) => macFor(key).verify(message, signature)))
    return null;
  let context: InternalContext;
  try {
    context = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as InternalContext;
  } catch {
    return null;
  }
  if (typeof context.expiresAt !== 'number' || context.expiresAt < nowSeconds) return null;
  return context;
}
