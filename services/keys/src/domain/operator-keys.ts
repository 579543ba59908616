import { z } from 'zod';
import { SYSTEM_SCOPE, classifyApiSecret, hashSecret, parseApiKey } from '@acs/auth';
import type { RateLimits } from '@acs/contracts';
import { notFound } from '@acs/errors';
import {
  findApiKeyById,
  findApiKeyByKey,
  hasActiveSystemKey,
  listApiKeys,
  lockApiKey,
  seedKeyWasRolled,
  updateApiKey,
  upsertUnrevokedApiKey,
} from '../data-access/api-keys-repository.js';
import { recordKeyChange } from '../events/keys-audit.js';
import type { ApiKey } from './api-key.js';
import { createApiKey } from './create-key.js';
import type { KeysDeps } from './deps.js';
import { revokeKey } from './revoke-key.js';
import { rollApiKey } from './roll-key.js';
import { parseOperatorScopes } from './scope-rules.js';
import { changeWithWriteThrough } from './write-through.js';

// Operators' actions on keys (the keys CLI and the start-up seed): any key, any scope including
// system:full-access, named by id or by the key itself. Users' actions are in user-keys.ts; both
// create through create-key.ts.

export interface SeedKeyInput {
  key: string;
  secret: string;
  scopes: string;
  name: string;
}

/**
 * SEED_API_KEY and friends: create or update that exact key at start. A malformed key stops the
 * start, and so does a revoked one: revocation lasts (a leaked seed key must not come back on the
 * next restart), so the operator has to seed a new key.
 */
export async function applySeedKey(deps: KeysDeps, seed: SeedKeyInput): Promise<ApiKey> {
  const parsed = parseApiKey(seed.key);
  if (!parsed) throw new Error(`SEED_API_KEY is not in the key format ${deps.keyPrefix}_<live|test>_<16-64 letters or digits>`);
  if (parsed.prefix !== deps.keyPrefix) {
    throw new Error(
      `SEED_API_KEY has the prefix "${parsed.prefix}", but this deployment's KEY_PREFIX is "${deps.keyPrefix}": expected ${deps.keyPrefix}_<live|test>_<16-64 letters or digits>`,
    );
  }
  // The gateway refuses, unread, a secret that starts like the current format but fails its checksum (docs/key-format.md).
  if (classifyApiSecret(seed.secret, parsed.prefix, parsed.environment) === 'invalid')
    throw new Error(
      `SEED_API_SECRET starts with "${parsed.prefix}_live_" or "${parsed.prefix}_test_" but is not a valid secret of that format for this key (docs/key-format.md): use a secret from \`npm run keys\`, or one without that prefix`,
    );
  const scopes = parseOperatorScopes(seed.scopes);
  if (await seedKeyWasRolled(deps.db, seed.key)) throw new Error(ROLLED_SEED_MESSAGE);
  const apiKey = await changeWithWriteThrough(deps, async (tx) => {
    const before = await findApiKeyByKey(tx, seed.key);
    const seeded = await upsertUnrevokedApiKey(tx, {
      key: seed.key,
      secretHash: hashSecret(seed.secret),
      name: seed.name,
      scopes,
      ownerUserId: null,
      environment: parsed.environment,
    });
    // Every start applies the seed again: only a start that changed it is a change to record.
    if (
      seeded &&
      (!before ||
        before.secretHash !== seeded.secretHash ||
        before.name !== seeded.name ||
        before.scopes.join(' ') !== seeded.scopes.join(' '))
    )
      await recordKeyChange(tx, deps.actor, 'api_key.seeded', before, seeded);
    return seeded;
  });
  if (!apiKey) throw new Error(REVOKED_SEED_MESSAGE);
  deps.logger.info({ audit: 'api_key.seeded', keyId: apiKey.id, scopes }, 'seed API key applied');
  return apiKey;
}

const ROTATE_THROUGH_VARIABLES =
  'set SEED_API_KEY and SEED_API_SECRET to a new key and secret ' +
  '(with docker-compose: DASHBOARD_API_KEY and DASHBOARD_API_SECRET in .env; in Kubernetes: DASHBOARD_API_KEY and DASHBOARD_API_SECRET in the acs-secrets Secret)';

export const ROLLED_SEED_MESSAGE =
  'SEED_API_KEY names a key whose secret was rolled since it was seeded, and seeding it again would bring the replaced secret back: ' +
  `to rotate the seed key, ${ROTATE_THROUGH_VARIABLES}`;

export const REVOKED_SEED_MESSAGE =
  'SEED_API_KEY names a key that was revoked, and a revoked key stays revoked: set SEED_API_KEY and SEED_API_SECRET to a new key and secret ' +
  '(with docker-compose: DASHBOARD_API_KEY and DASHBOARD_API_SECRET in .env; in Kubernetes: DASHBOARD_API_KEY and DASHBOARD_API_SECRET in the acs-secrets Secret)';

/**
 * First start without seed variables: make one system key so the operator can call the API at
 * all. Returns the credentials to show once, or null when a usable system key already exists.
 */
export async function ensureSystemKey(deps: KeysDeps): Promise<{ key: string; secret: string } | null> {
  if (await hasActiveSystemKey(deps.db, SYSTEM_SCOPE)) return null;
  const { apiKey, secret } = await createApiKey(deps, {
    name: 'system key (first start)',
    scopes: [SYSTEM_SCOPE],
    ownerUserId: null,
    environment: 'live',
  });
  return { key: apiKey.key, secret };
}

/** Scope, name, rate-limit or allow-list change (null: back to the default, any address); effective on the gateway's very next request. */
export async function changeApiKey(
  deps: KeysDeps,
  id: string,
  changes: { scopes?: string[]; name?: string; rateLimits?: RateLimits | null; ipAllowList?: string[] | null },
): Promise<ApiKey> {
  const changed = await changeWithWriteThrough(deps, async (tx) => {
    const current = await lockApiKey(tx, id);
    if (!current) return null;
    const updated = await updateApiKey(tx, id, changes);
    if (updated) await recordKeyChange(tx, deps.actor, 'api_key.changed', current, updated);
    return updated;
  });
  if (!changed) throw notFound('No such API key', 'key_not_found');
  deps.logger.info(
    { audit: 'api_key.changed', keyId: id, userId: changed.ownerUserId, scopes: changed.scopes, rateLimits: changed.rateLimits },
    'API key changed',
  );
  return changed;
}

/** Revocation keeps the record (for the owner's history) and stops the key on the next request. */
export async function revokeApiKey(deps: KeysDeps, id: string): Promise<ApiKey> {
  const revoked = await revokeKey(deps, id, () => true);
  if (!revoked) throw notFound('No such API key', 'key_not_found');
  deps.logger.info({ audit: 'api_key.revoked', keyId: id, userId: revoked.ownerUserId }, 'API key revoked');
  return revoked;
}

/** Every key, or one owner's (null: the system keys), newest first; for operators. */
export function listKeys(deps: KeysDeps, filter: { ownerUserId?: number | null } = {}): Promise<ApiKey[]> {
  return listApiKeys(deps.db, filter);
}

/** A key named the way an operator names it: its id or the key itself. */
export async function findKey(deps: KeysDeps, idOrKey: string): Promise<ApiKey> {
  const found = parseApiKey(idOrKey)
    ? await findApiKeyByKey(deps.db, idOrKey)
    : z.uuid().safeParse(idOrKey).success
      ? await findApiKeyById(deps.db, idOrKey)
      : null;
  if (!found) throw notFound(`No API key ${idOrKey}`, 'key_not_found');
  return found;
}

/** Roll by an operator: any key; the replaced secret works for `graceSeconds` more. */
export function rollKey(deps: KeysDeps, id: string, graceSeconds: number): Promise<{ apiKey: ApiKey; secret: string }> {
  return rollApiKey(
    deps,
    id,
    graceSeconds,
    () => true,
    () => notFound('No such API key', 'key_not_found'),
  );
}
