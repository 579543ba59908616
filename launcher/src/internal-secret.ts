import { createHmac, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { commaSeparatedEntries } from '@acs/config';

/** The services the gateway signs contexts for, each verifying with a key of its own. */
const SIGNED_SERVICES = ['keys', 'identity', 'catalog', 'device', 'billing', 'webhooks'] as const;
export type SignedService = (typeof SIGNED_SERVICES)[number];

/** Every internal key of the embedded system: one per service, and device's key for the catalog's /internal/ routes. */
export type InternalKeys = Record<SignedService | 'deviceToCatalog', string>;

const KEYS_FILE = 'internal-keys.json';
const NAMES = [...SIGNED_SERVICES, 'deviceToCatalog'] as const;
const storedSchema = z.object(
  Object.fromEntries(NAMES.map((name) => [name, z.string().min(32)])) as Record<(typeof NAMES)[number], z.ZodString>,
);

const randomKey = (): string => randomBytes(32).toString('base64url');

/**
 * INTERNAL_SECRET given to `npm start`: each key derived from it (HMAC-SHA-256 of the key's name), so
 * the same value gives the same keys on every start and to every launcher of one deployment.
 */
export function deriveInternalKeys(master: string): InternalKeys {
  return Object.fromEntries(
    NAMES.map((name) => [name, createHmac('sha256', master).update(`acs internal key: ${name}`).digest('base64url')]),
  ) as InternalKeys;
}

/** Without INTERNAL_SECRET: random keys, made once and kept (0600) under DATA_DIR. */
export async function loadOrCreateInternalKeys(dataDir: string): Promise<InternalKeys> {
  const file = join(dataDir, KEYS_FILE);
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text !== null) {
    try {
      const stored = JSON.parse(text) as Record<string, unknown>;
      const parsed = storedSchema.safeParse(stored);
      if (parsed.success) return parsed.data;
      // A data folder from before a service was added: the keys it has stay, the new service gets one.
      const added = storedSchema.safeParse({ ...Object.fromEntries(NAMES.map((name) => [name, randomKey()])), ...stored });
      if (added.success) return await keep(file, added.data);
    } catch {
      // Not JSON (a write cut short): made again below, as on a first start.
    }
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  return keep(file, Object.fromEntries(NAMES.map((name) => [name, randomKey()])) as InternalKeys);
}

/** Writes the keys whole (a temporary file renamed over the old one), 0600. */
async function keep(file: string, keys: InternalKeys): Promise<InternalKeys> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(keys), { mode: 0o600 });
  await rename(temporary, file);
  return keys;
}

/**
 * The key the embedded webhooks service encrypts its signing secrets with when WEBHOOKS_SECRET_KEY is
 * unset: derived from its internal key, so it is the same on every start of the data folder.
 */
const webhookSecretKey = (keys: InternalKeys): string =>
  createHmac('sha256', keys.webhooks).update('acs webhook secret encryption').digest('base64url');

/**
 * The webhooks service's keys under `npm start`: WEBHOOKS_SECRET_KEY from the environment, else the derived
 * key. Once the environment names a key of its own, the derived key stays readable, last in
 * WEBHOOKS_SECRET_KEY_PREVIOUS after any previous keys the environment names (a second rotation must not drop
 * it): the endpoints registered before keep signing, and since the derived key comes back on every start of the
 * data folder, nothing has to be resealed (docs/security.md).
 */
export function webhookKeySettings(
  env: Readonly<Record<string, string | undefined>>,
  keys: InternalKeys,
): { WEBHOOKS_SECRET_KEY: string; WEBHOOKS_SECRET_KEY_PREVIOUS: string | undefined } {
  const derived = webhookSecretKey(keys);
  const current = env.WEBHOOKS_SECRET_KEY ?? derived;
  const named = env.WEBHOOKS_SECRET_KEY_PREVIOUS ?? '';
  // The derived key (base64url: no comma) joins the list unless it is the current key or listed already.
  const keepDerived = current !== derived && !commaSeparatedEntries(named).includes(derived);
  const previous = [named, keepDerived ? derived : ''].filter((part) => part !== '').join(',');
  return { WEBHOOKS_SECRET_KEY: current, WEBHOOKS_SECRET_KEY_PREVIOUS: previous === '' ? undefined : previous };
}
