import { secretMatchesHash } from '@acs/auth';
import { parseVersioned } from '@acs/cache';
import { MISSING_KEY_MARKER, compileIpAllowList, type ApiKeyCacheRecord, type IpAllowList } from '@acs/contracts';

/** A key record as the gateway uses it: with the secret hashes decoded and the allow-list compiled once. */
export type KeyRecord = ApiKeyCacheRecord & {
  secretHashBytes: Buffer;
  previousSecretHashBytes: Buffer | null;
  /** The compiled ipAllowList; null: any address (no check, no cost). */
  allowList: IpAllowList | null;
};

/** The keys service stored "no such key" (a marker entry). */
export const NO_SUCH_KEY = 'no-such-key';

export function keyRecordOf(record: ApiKeyCacheRecord): KeyRecord {
  return {
    ...record,
    secretHashBytes: Buffer.from(record.secretHash, 'base64url'),
    previousSecretHashBytes: record.previousSecretHash ? Buffer.from(record.previousSecretHash, 'base64url') : null,
    // Compiled here, so once per record string (the parsed memo), never per request.
    allowList: record.ipAllowList ? compileIpAllowList(record.ipAllowList) : null,
  };
}

/**
 * A raw `apikey:{<key>}` entry: the record, NO_SUCH_KEY for the marker, null for anything that is not a
 * versioned entry (treated as a miss: the keys service refills it).
 */
export function parseKeyEntry(raw: string): KeyRecord | typeof NO_SUCH_KEY | null {
  const entry = parseVersioned(raw);
  if (entry === null) return null;
  if (entry.value === MISSING_KEY_MARKER) return NO_SUCH_KEY;
  return keyRecordOf(JSON.parse(entry.value) as ApiKeyCacheRecord);
}

/**
 * Whether the key opens anything now: not revoked, not expired (an instant in the record against this
 * replica's clock), and the secret matches the current hash or, during a roll's grace period only, the
 * replaced one. Both comparisons are constant-time; the second runs only when the first failed.
 */
export function keyAccepts(record: KeyRecord, secret: string): boolean {
  if (record.revoked) return false;
  const nowMs = record.expiresAtMs === undefined && record.previousSecretHashBytes === null ? 0 : Date.now();
  if (record.expiresAtMs !== undefined && nowMs >= record.expiresAtMs) return false;
  if (secretMatchesHash(secret, record.secretHashBytes)) return true;
  const previous = record.previousSecretHashBytes;
  return previous !== null && nowMs < record.previousSecretEndsAtMs! && secretMatchesHash(secret, previous);
}
