import { createHash, randomBytes } from 'node:crypto';

/** A token for an e-mailed link: 256 random bits, base64url (43 characters). */
export const newMailedToken = (): string => randomBytes(32).toString('base64url');

/** Stored as SHA-256: the token has 256 random bits, so a fast hash is enough (nothing to brute-force) and the table holds no usable token. */
export const hashMailedToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();
