import { isIP } from 'node:net';
import { isBlockedAddress } from './address-policy.js';

/** Resolves a host name to every address it has (dns.lookup with all: true, or a test's stand-in). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export interface UrlPolicy {
  /** WEBHOOKS_ALLOW_PRIVATE_URLS: http and private addresses allowed (tests, `npm start`); never in production. */
  allowPrivate: boolean;
  resolve: ResolveHost;
}

/** Why a URL is refused, as the 400's message says it; null when it may be registered. */
export async function urlRefusal(text: string, policy: UrlPolicy): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'url is not an absolute URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) return 'url must be https';
  if (url.username || url.password) return 'url must not carry credentials';
  if (url.hash) return 'url must not have a fragment';
  if (policy.allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return isBlockedAddress(host) ? `url's address ${host} is not public` : null;
  let addresses: string[];
  try {
    addresses = await policy.resolve(host);
  } catch {
    return `url's host ${host} does not resolve`;
  }
  if (addresses.length === 0) return `url's host ${host} does not resolve`;
  const blocked = addresses.find(isBlockedAddress);
  return blocked === undefined ? null : `url's host ${host} resolves to ${blocked}, which is not public`;
}
