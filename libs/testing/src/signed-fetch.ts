import { signContext, type InternalContext } from '@acs/auth';

/** Calls a service directly as the gateway would: with a signed caller context. */
export function signedFetch(
  baseUrl: string,
  internalSecret: string,
  method: string,
  pathAndQuery: string,
  options: { body?: unknown; context?: Partial<Omit<InternalContext, 'expiresAt'>>; headers?: Record<string, string> } = {},
): Promise<Response> {
  const { context, signature } = signContext(internalSecret, method, pathAndQuery, {
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
