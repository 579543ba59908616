import { z } from 'zod';
import { parseApiKey } from '@acs/auth';
import { notFound } from '@acs/errors';
import { findApiKeyById, findApiKeyByKey, listApiKeys } from '../data-access/api-keys-repository.js';
import type { ApiKey } from './api-key.js';
import type { KeysDeps } from './deps.js';

/** Every key, or one owner's (null: the system keys), newest first; for operators. */
export function listKeys(deps: KeysDeps, filter: { ownerUserId?: number | null } = {}): Promise<ApiKey[]> {
  return listApiKeys(deps.db, filter);
}

/** A key named the way an operator names it: its id or the key itself. */
export async function findKey(deps: KeysDeps, idOrKey: string): Promise<ApiKey> {
  const found = parseApiKey(idOrKey) ? await findApiKeyByKey(deps.db, idOrKey) : z.uuid().safeParse(idOrKey).success ? await findApiKeyById(deps.db, idOrKey) : null;
  if (!found) throw notFound(`No API key ${idOrKey}`);
  return found;
}
