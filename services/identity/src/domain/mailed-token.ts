import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '@acs/db';
import { insertSingleUseToken, type SingleUseTokenTable } from '../data-access/single-use-token-repository.js';

/** A token for an e-mailed link: 256 random bits, base64url (43 characters). */
export const newMailedToken = (): string => randomBytes(32).toString('base64url');

/** Stored as SHA-256: the token has 256 random bits, so a fast hash is enough (nothing to brute-force) and the table holds no usable token. */
export const hashMailedToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** Makes a token for a link valid `seconds`, stores only its hash in `table`, and answers the token for the mail. */
export async function issueMailedToken(db: Queryable, table: SingleUseTokenTable, userId: number, seconds: number): Promise<string> {
  const token = newMailedToken();
  await insertSingleUseToken(db, table, hashMailedToken(token), userId, new Date(Date.now() + seconds * 1000));
  return token;
}
