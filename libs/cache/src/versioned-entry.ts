import type { VersionedEntry } from './cache.js';

/*
 * A versioned entry is one string, `<version>|<value>`, so a single GET (or MGET) reads version and value
 * together and the setIfNewer Lua script can compare versions without a second key. The version is digits
 * only, so the first `|` ends it and the value may contain `|` freely.
 */

const SEPARATOR = 124; // '|'
const DIGIT_0 = 48;
const DIGIT_9 = 57;

export function encodeVersioned(version: number, value: string): string {
  return `${version}|${value}`;
}

/**
 * Hot path (the gateway calls it per request): a single scan with charCodeAt instead of split/slice/regex,
 * so the only allocations are the value substring and the result object. Anything that is not
 * `<digits>|...` is treated as a miss, exactly as the Lua script treats it as absent.
 */
export function parseVersioned(raw: string | null | undefined): VersionedEntry | null {
  if (raw == null) return null;
  const length = raw.length;
  let version = 0;
  let index = 0;
  for (; index < length; index++) {
    const code = raw.charCodeAt(index);
    if (code === SEPARATOR) break;
    if (code < DIGIT_0 || code > DIGIT_9) return null;
    version = version * 10 + (code - DIGIT_0);
  }
  if (index === 0 || index === length || !Number.isSafeInteger(version)) return null;
  return { version, value: raw.slice(index + 1) };
}

export function parseVersionedList(raws: readonly (string | null)[]): (VersionedEntry | null)[] {
  const entries = new Array<VersionedEntry | null>(raws.length);
  for (let i = 0; i < raws.length; i++) entries[i] = parseVersioned(raws[i]);
  return entries;
}
