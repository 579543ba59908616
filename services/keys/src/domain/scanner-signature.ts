import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { errorOf, type AppError } from '@acs/errors';
import { z } from 'zod';

/** A scanner's public key as GitHub publishes them (GET /meta/public_keys/secret_scanning): an identifier and a PEM. */
const publicKeyEntrySchema = z.object({ key_identifier: z.string().min(1), key: z.string().min(1) });
/** The operator's list: the array itself, or GitHub's answer with its `public_keys` array. */
const publicKeysSchema = z.union([z.array(publicKeyEntrySchema), z.object({ public_keys: z.array(publicKeyEntrySchema) })]);

/** The scanners' public keys by identifier; empty: leak reports are off (404). */
export type ScannerKeys = ReadonlyMap<string, KeyObject>;

/** SECRET_SCANNING_PUBLIC_KEYS (JSON) or the file SECRET_SCANNING_PUBLIC_KEYS_FILE names; a bad list stops the start. */
export function loadScannerKeys(json: string | undefined, file: string | undefined): ScannerKeys {
  const text = json ?? (file ? readFileSync(file, 'utf8') : undefined);
  if (text === undefined) return new Map();
  const parsed = publicKeysSchema.parse(JSON.parse(text));
  const entries = Array.isArray(parsed) ? parsed : parsed.public_keys;
  return new Map(entries.map((entry) => [entry.key_identifier, createPublicKey(entry.key)]));
}

const refusal = (status: 'bad_request' | 'unauthorized', message: string, code: string): AppError => errorOf(status, message, { code });

/**
 * The report's ECDSA (P-256, SHA-256, DER) signature over its exact bytes, by a key the operator configured;
 * anything else is refused before the report is even parsed.
 */
export function checkReportSignature(keys: ScannerKeys, keyIdentifier: string | null, signature: string | null, body: Buffer): void {
  if (!keyIdentifier || !signature)
    throw refusal('bad_request', 'The report must carry Github-Public-Key-Identifier and Github-Public-Key-Signature', 'signature_missing');
  const key = keys.get(keyIdentifier);
  if (!key) throw refusal('unauthorized', 'The report is signed with an unknown key', 'unknown_signing_key');
  let valid = false;
  try {
    valid = verify('sha256', body, key, Buffer.from(signature, 'base64'));
  } catch {
    valid = false; // not a DER signature at all
  }
  if (!valid) throw refusal('unauthorized', 'The report signature does not verify', 'invalid_signature');
}
