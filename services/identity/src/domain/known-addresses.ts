import { createHash } from 'node:crypto';

/** At most this many addresses are remembered per account: enough for home, work and a phone or two. */
const MAX_KNOWN_ADDRESSES = 10;

/** [address hash, last successful sign-in in Unix seconds], newest first. */
type Entry = [string, number];

/**
 * The address as the known-address list keeps it: a short SHA-256 of the throttling bucket, so the
 * list is not a plain record of where someone signs in from (IPv4 is small enough to be reversed by
 * brute force: this keeps it out of sight, it does not make it secret).
 */
export const knownAddressId = (bucket: string): string => createHash('sha256').update(bucket).digest('hex').slice(0, 16);

/** Parses the stored list, dropping anything malformed or older than `maxAgeSeconds`. */
export function parseKnownAddresses(raw: string | null, now: number, maxAgeSeconds: number): Entry[] {
  if (raw === null) return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  return value.filter(
    (entry): entry is Entry =>
      Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'number' && now - entry[1] < maxAgeSeconds,
  );
}

export const isKnownAddress = (entries: readonly Entry[], id: string): boolean => entries.some(([known]) => known === id);

/** The list after a successful sign-in from `id`: it moves to the front, the oldest beyond the bound drop off. */
export function withKnownAddress(entries: readonly Entry[], id: string, now: number): string {
  const newest: Entry = [id, now];
  const next: Entry[] = [newest, ...entries.filter(([known]) => known !== id)].slice(0, MAX_KNOWN_ADDRESSES);
  return JSON.stringify(next);
}
