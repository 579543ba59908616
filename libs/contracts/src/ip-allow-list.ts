import { isIPv4 } from 'node:net';
import { z } from 'zod';

/*
 * Per-key IP allow-lists (issue 31.3): IPv4 and IPv6 CIDR ranges (a bare address is one host). The gateway
 * compiles a key's list once per cached record and matches the client address with integer compares:
 * node:net's BlockList.check parses its argument into a new SocketAddress on every call (~8 µs measured), over
 * the per-request budget (docs/performance.md).
 */

export const IP_ALLOW_LIST_MAX_ENTRIES = 100;

/** One range: the network in 32-bit words (1 for IPv4, 4 for IPv6) and the prefix length. */
interface Range {
  v4: boolean;
  words: Uint32Array;
  prefix: number;
}

/** `a.b.c.d` as an unsigned 32-bit number; -1 if it is not one (strict: no leading zeros, 0..255). */
function ipv4Word(text: string, from = 0, to = text.length): number {
  let word = 0;
  let part = -1;
  let digits = 0;
  let dots = 0;
  for (let i = from; i <= to; i++) {
    const code = i === to ? 46 : text.charCodeAt(i);
    if (code === 46) {
      if (digits === 0 || part > 255) return -1;
      word = word * 256 + part;
      if (i < to && ++dots > 3) return -1;
      part = -1;
      digits = 0;
    } else if (code >= 48 && code <= 57) {
      if (digits > 0 && part === 0) return -1; // a leading zero (octal in some parsers)
      part = Math.max(part, 0) * 10 + (code - 48);
      digits++;
    } else return -1;
  }
  return dots === 3 ? word : -1;
}

/** The 8 groups of the address being parsed: one parse at a time (synchronous), so one buffer serves every call. */
const GROUPS = new Uint16Array(8);

/** A hexadecimal digit's value; -1 for any other character. */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

/**
 * An IPv6 address (groups of 1-4 hex digits, at most one `::`, an optional dotted IPv4 tail; no zone) into `out`
 * as 4 words; false if it is not one. A loop over the characters, without allocating: it runs per request for a
 * key with an allow-list and an IPv6 client (split and isIPv6 cost several µs).
 */
function parseIpv6(text: string, out: Uint32Array): boolean {
  const length = text.length;
  if (length < 2 || length > 45) return false;
  let groups = 0;
  let gap = -1;
  let i = 0;
  if (text.charCodeAt(0) === 58) {
    if (text.charCodeAt(1) !== 58) return false;
    gap = 0;
    i = 2;
  }
  while (i < length) {
    const start = i;
    let value = 0;
    let digit = hexValue(text.charCodeAt(i));
    while (digit >= 0 && i - start < 4) {
      value = value * 16 + digit;
      i++;
      digit = i < length ? hexValue(text.charCodeAt(i)) : -1;
    }
    if (i < length && text.charCodeAt(i) === 46) {
      // The dotted IPv4 tail: two groups, and the end of the address.
      const v4 = groups <= 6 ? ipv4Word(text, start, length) : -1;
      if (v4 < 0) return false;
      GROUPS[groups++] = v4 >>> 16;
      GROUPS[groups++] = v4 & 0xffff;
      i = length;
      break;
    }
    if (i === start || groups === 8 || digit >= 0) return false;
    GROUPS[groups++] = value;
    if (i === length) break;
    if (text.charCodeAt(i) !== 58 || ++i === length) return false;
    if (text.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = groups;
      i++;
    }
  }
  if (gap < 0 ? groups !== 8 : groups > 7) return false;
  const zeros = 8 - groups;
  for (let w = 0; w < 4; w++) {
    const high = groupAt(2 * w, gap, zeros);
    const low = groupAt(2 * w + 1, gap, zeros);
    out[w] = ((high << 16) | low) >>> 0;
  }
  return true;
}

/** Group `index` of the full address: the parsed groups with `zeros` zero groups inserted at `gap` (-1: none). */
function groupAt(index: number, gap: number, zeros: number): number {
  if (gap < 0 || index < gap) return GROUPS[index]!;
  if (index < gap + zeros) return 0;
  return GROUPS[index - zeros]!;
}

/** An IPv6 address as 4 new words; null if it is not one (compiling and validation only). */
function ipv6Words(text: string): Uint32Array | null {
  const words = new Uint32Array(4);
  return parseIpv6(text, words) ? words : null;
}

/** The mask of a word that holds bits [32*index, 32*index+32) of a `prefix`-bit network. */
const maskOf = (prefix: number, index: number): number => {
  const bits = Math.min(32, Math.max(0, prefix - 32 * index));
  return bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
};

/** A v4-mapped IPv6 address (::ffff:a.b.c.d) is that IPv4 address. */
const isMapped = (words: Uint32Array): boolean => words[0] === 0 && words[1] === 0 && words[2] === 0xffff;

/** One allow-list entry as a range, or the reason it is not one (strict: no spaces, zones or leading zeros). */
export function parseCidr(text: string): Range | string {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const prefixText = slash < 0 ? null : text.slice(slash + 1);
  if (prefixText !== null && !/^(0|[1-9][0-9]{0,2})$/.test(prefixText)) return 'the prefix length must be a whole number, e.g. /24';
  if (isIPv4(address)) {
    const word = ipv4Word(address);
    if (word < 0) return 'not an IPv4 address in dotted decimal without leading zeros';
    const prefix = prefixText === null ? 32 : Number(prefixText);
    if (prefix > 32) return 'an IPv4 prefix length is at most 32';
    return { v4: true, words: Uint32Array.of(word), prefix };
  }
  const words = ipv6Words(address);
  if (words === null) return 'not an IPv4 or IPv6 address or CIDR range (e.g. 203.0.113.0/24 or 2001:db8::/32)';
  const prefix = prefixText === null ? 128 : Number(prefixText);
  if (prefix > 128) return 'an IPv6 prefix length is at most 128';
  // ::ffff:a.b.c.d/p (p >= 96) is the IPv4 range a.b.c.d/(p - 96): the gateway sees those clients as IPv4.
  if (isMapped(words) && prefix >= 96) return { v4: true, words: Uint32Array.of(words[3]!), prefix: prefix - 96 };
  return { v4: false, words, prefix };
}

/** A key's compiled allow-list: `allows` runs on every request of the key. */
export interface IpAllowList {
  allows(address: string): boolean;
}

/** Compiles validated entries (the keys service stored only valid ones; an invalid one would match nothing). */
export function compileIpAllowList(entries: readonly string[]): IpAllowList {
  const v4: { network: number; mask: number }[] = [];
  const v6: { network: Uint32Array; masks: Uint32Array }[] = [];
  for (const entry of entries) {
    const range = parseCidr(entry);
    if (typeof range === 'string') continue;
    if (range.v4) {
      const mask = maskOf(range.prefix, 0);
      v4.push({ network: (range.words[0]! & mask) >>> 0, mask });
    } else {
      const masks = Uint32Array.from([0, 1, 2, 3], (i) => maskOf(range.prefix, i));
      v6.push({ network: range.words.map((word, i) => (word & masks[i]!) >>> 0), masks });
    }
  }
  const allowsV4 = (word: number): boolean => {
    for (const range of v4) if ((word & range.mask) >>> 0 === range.network) return true;
    return false;
  };
  const words = new Uint32Array(4);
  return {
    allows(address) {
      const word = ipv4Word(address);
      if (word >= 0) return allowsV4(word);
      if (!parseIpv6(address, words)) return false;
      if (isMapped(words)) return allowsV4(words[3]!);
      for (const range of v6) {
        let match = true;
        for (let i = 0; i < 4 && match; i++) match = (words[i]! & range.masks[i]!) >>> 0 === range.network[i];
        if (match) return true;
      }
      return false;
    },
  };
}

/** `ipAllowList` in create and PATCH: null (or absent on create) means any address. */
export const ipAllowListSchema = z
  .array(
    z
      .string()
      .max(64)
      .superRefine((entry, ctx) => {
        const range = parseCidr(entry);
        if (typeof range === 'string') ctx.addIssue({ code: 'custom', message: `"${entry}": ${range}` });
      }),
  )
  .min(1, 'give at least one range, or null for any address')
  .max(IP_ALLOW_LIST_MAX_ENTRIES, `at most ${IP_ALLOW_LIST_MAX_ENTRIES} ranges`);
