import { BlockList, isIP } from 'node:net';

/**
 * The addresses a webhook may never reach (SSRF): anything that is not a public unicast address.
 * Checked at registration (the URL's host and whatever it resolves to) and again at connection
 * time, on the address actually dialled (safe-lookup.ts), which defeats DNS rebinding.
 */
const BLOCKED = new BlockList();
const v4: [string, number][] = [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 (unspecified)
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT (shared address space)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, incl. the cloud metadata service 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. 255.255.255.255 (broadcast)
];
const v6: [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo (tunnels to an IPv4 address we cannot check)
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local, incl. the AWS metadata service fd00:ec2::254
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];
for (const [network, prefix] of v4) BLOCKED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of v6) BLOCKED.addSubnet(network, prefix, 'ipv6');

/** Global unicast: every other IPv6 address (reserved, unassigned) is refused whatever its use. */
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

/**
 * The IPv4 address an IPv6 address carries and would reach (IPv4-mapped ::ffff:a.b.c.d,
 * IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d, 6to4 2002:AABB:CCDD::), so ::ffff:127.0.0.1
 * is judged as 127.0.0.1.
 */
function embeddedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (groups === null) return null;
  const head = groups.slice(0, 6);
  const mapped = head.slice(0, 5).every((g) => g === 0) && (head[5] === 0xffff || head[5] === 0);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (groups[0] === 0x2002) return `${groups[1]! >> 8}.${groups[1]! & 0xff}.${groups[2]! >> 8}.${groups[2]! & 0xff}`;
  if (!mapped && !nat64) return null;
  const [hi, lo] = [groups[6]!, groups[7]!];
  // ::0.0.0.x with the high groups zero is :: or ::1 (judged as IPv6 already), not an IPv4 address.
  if (!nat64 && head[5] === 0 && hi === 0) return null;
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail read as two groups); null when it is not one. */
function expandIpv6(address: string): number[] | null {
  let text = address.split('%')[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const bytes = dotted[1]!.split('.').map(Number);
    text = `${text.slice(0, -dotted[1]!.length)}${((bytes[0]! << 8) | bytes[1]!).toString(16)}:${((bytes[2]! << 8) | bytes[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  const fill = 8 - left.length - right.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return null;
  const groups = [...left, ...new Array<number>(fill).fill(0), ...right];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** Whether `address` (an IP literal) is one a webhook may not reach; anything that is not an IP address is blocked too. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare.split('%')[0]!);
  if (family === 4) return BLOCKED.check(bare, 'ipv4');
  if (family !== 6) return true;
  const plain = bare.split('%')[0]!;
  const inner = embeddedIpv4(plain);
  if (inner !== null) return BLOCKED.check(inner, 'ipv4');
  return BLOCKED.check(plain, 'ipv6') || !GLOBAL_UNICAST.check(plain, 'ipv6');
}
