import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { isBlockedAddress } from '../domain/address-policy.js';
import type { ResolveHost } from '../domain/url-policy.js';

/** The error a connection refused by the address policy fails with; its code names it in the delivery log. */
class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(hostname: string, address: string) {
    super(`${hostname} resolves to ${address}, which webhooks may not reach`);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The `lookup` a webhook connection dials through: it resolves the host itself and hands the socket
 * only addresses the policy allows, so the address checked is the address connected to (a name that
 * resolved to a public address at registration and to 127.0.0.1 now is refused: DNS rebinding).
 * Any blocked address among the answers refuses the whole name.
 */
export function safeLookup(resolve: ResolveHost) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const blocked = addresses.find(isBlockedAddress);
        if (blocked !== undefined) return callback(new BlockedAddressError(hostname, blocked), '', 4);
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 4);
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => isIP(a) === options.family) : addresses;
        if (wanted.length === 0)
          return callback(Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }), '', 4);
        if (options.all)
          return callback(
            null,
            wanted.map((address) => ({ address, family: isIP(address) })),
          );
        return callback(null, wanted[0]!, isIP(wanted[0]!));
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, '', 4),
    );
  };
}
