import { signContext, type InternalContext } from '@acs/auth';

/**
 * The service a path belongs to, as the gateway routes it: signed contexts are bound to their
 * target service, so a test calling a service directly must sign for that service.
 */
const AUDIENCE_BY_PATH: readonly [RegExp, string][] = [
  [/^\/(api\/Dac|internal\/catalog)(\/|\?|$)/, 'catalog'],
  [/^\/api\/Devices(\/|\?|$)/, 'device'],
  [/^\/(api\/Users|internal\/users)(\/|\?|$)|^\/\.well-known\/jwks\.json$/, 'identity'],
  [/^\/(api\/ApiKeys|api\/Usage|internal\/keys)(\/|\?|$)/, 'keys'],
  [/^\/api\/Subscription(s|Plans)(\/|\?|$)/, 'billing'],
  [/^\/api\/Webhooks(\/|\?|$)/, 'webhooks'],
];

function audienceOf(pathAndQuery: string): string {
  const found = AUDIENCE_BY_PATH.find(([pattern]) => pattern.test(pathAndQuery));
  if (!found) throw new Error(`signedFetch: no service owns ${pathAndQuery}; pass options.audience`);
  return found[1];
}

/** Calls a service directly as the gateway would: with a caller context signed for the service that owns the path. */
export function signedFetch(
  baseUrl: string,
  internalSecret: string,
  method: string,
  pathAndQuery: string,
  options: {
    body?: unknown;
    context?: Partial<Omit<InternalContext, 'expiresAt'>>;
    headers?: Record<string, string>;
    audience?: string;
  } = {},
): Promise<Response> {
  const { context, signature } = signContext(internalSecret, options.audience ?? audienceOf(pathAndQuery), method, pathAndQuery, {
    requestId: 'test',
    keyId: 'test-key',
    scopes: [],
    ...options.context,
  });
  const headers: Record<string, string> = { 'x-acs-context': context, 'x-acs-signature': signature, ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  return fetch(baseUrl + pathAndQuery, { method, headers, body });
}
