import { BlockList, isIP } from 'node:net';

/**
 * The address of the client a request is for, as throttling and audit logs need it. Behind a load
 * balancer or an Ingress every connection comes from the proxy, so X-Forwarded-For is read, but
 * only as far as it was written by proxies we trust: walking the list from the right (the hop
 * nearest to us), the first address that is not a trusted proxy is the client. Anything a client
 * wrote further left is ignored, so it cannot pick its own address.
 */
export type ClientAddressResolver = (
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  peerIsTrusted?: boolean,
) => string;

/** `trusted`: IP addresses and CIDR ranges (`10.0.0.0/8`, `fd00::/8`). Throws on an entry that is neither. */
export function createClientAddressResolver(trusted: readonly string[]): ClientAddressResolver {
  const proxies = new BlockList();
  for (const entry of trusted) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) throw new Error(`not an IP address or CIDR range: "${entry}"`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) proxies.addAddress(address, type);
    else proxies.addSubnet(address, Number(prefix), type);
  }
  const isTrusted = (address: string): boolean => {
    const family = isIP(address);
    return family !== 0 && proxies.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };

  return (rawPeer, forwardedFor, peerIsTrusted = false) => {
    const peer = unmapped(rawPeer ?? '');
    if (forwardedFor === undefined || !(peerIsTrusted || (trusted.length > 0 && isTrusted(peer)))) return peer;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = unmapped(hops[i]!.trim());
      // A malformed entry ends the trusted part of the chain: keep the last address we could vouch for.
      if (isIP(hop) === 0) return client;
      client = hop;
      if (!isTrusted(hop)) return hop;
    }
    return client;
  };
}

/** `::ffff:10.1.2.3` (an IPv4 client on a dual-stack socket) is 10.1.2.3. */
function unmapped(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
