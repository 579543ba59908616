import { isIPv4, isIPv6 } from 'node:net';

/** Expands an IPv6 address to its eight groups (no zone, no embedded IPv4 left). */
function ipv6Groups(address: string): string[] | null {
  let text = address.split('%')[0]!.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  const groups = tail === undefined ? left : [...left, ...Array<string>(missing).fill('0'), ...right];
  return groups.length === 8 ? groups.map((group) => group.replace(/^0+(?=.)/, '')) : null;
}

/**
 * The bucket a client address is throttled in. IPv4: the address. IPv6: its /64 (one subscriber
 * usually holds a whole /64, so counting per /128 would give an attacker 2^64 fresh buckets);
 * IPv4-mapped IPv6 counts as the IPv4 address. Anything else (or nothing) shares the bucket
 * "unknown": the gateway signs the address, so that only happens when it could not tell.
 */
export function addressBucket(clientIp: string | undefined): string {
  if (clientIp === undefined) return 'unknown';
  if (isIPv4(clientIp)) return clientIp;
  if (!isIPv6(clientIp)) return 'unknown';
  const groups = ipv6Groups(clientIp);
  if (!groups) return 'unknown';
  if (groups.slice(0, 5).every((group) => group === '0') && groups[5] === 'ffff') {
    const [hi, lo] = [parseInt(groups[6]!, 16), parseInt(groups[7]!, 16)];
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
}
