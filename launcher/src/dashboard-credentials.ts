import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { SYSTEM_SCOPE, hashSecret } from '@acs/auth';
import { changeApiKey, createApiKey, type KeysDeps } from '@acs/keys-service';

const KEY_FILE = 'dashboard-api-key.json';
const SESSION_SECRET_FILE = 'dashboard-session-secret';
const DASHBOARD_KEY_NAME = 'account dashboard (made by npm start)';

const storedKeySchema = z.object({ id: z.uuid(), key: z.string().min(1), secret: z.string().min(32) });
export type DashboardKey = z.infer<typeof storedKeySchema>;

/** Written whole or not at all (a crash mid-write must not leave half a secret), readable by the owner only. */
async function writePrivateFile(dataDir: string, name: string, content: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const temporary = join(dataDir, `.${name}.${process.pid}.tmp`);
  await writeFile(temporary, content, { mode: 0o600 });
  await rename(temporary, join(dataDir, name));
}

async function readStoredKey(dataDir: string): Promise<DashboardKey | null> {
  const text = await readFile(join(dataDir, KEY_FILE), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const parsed = storedKeySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Is the stored key still the live system key we made? Touches only its name, so a stray id changes nothing that matters. */
async function stillValid(deps: KeysDeps, stored: DashboardKey): Promise<boolean> {
  try {
    const current = await changeApiKey(deps, stored.id, { name: DASHBOARD_KEY_NAME });
    return (
      current.key === stored.key &&
      current.ownerUserId === null &&
      current.revokedAt === null &&
      current.scopes.includes(SYSTEM_SCOPE) &&
      current.secretHash === hashSecret(stored.secret)
    );
  } catch (err) {
    // Not found: the file belongs to another database (DATABASE_URL changed) or the row is gone.
    if ((err as { kind?: unknown }).kind === 'not_found') return false;
    throw err;
  }
}

/**
 * The dashboard's own system:full-access key. The service stores only the secret's hash, so the
 * secret itself is kept under DATA_DIR (0600, like the internal secret) and reused while the key
 * stays valid. Revoking it (keys CLI) and restarting rotates it: a new key is made and stored.
 */
export async function ensureDashboardKey(deps: KeysDeps, dataDir: string): Promise<DashboardKey> {
  const stored = await readStoredKey(dataDir);
  if (stored && (await stillValid(deps, stored))) return stored;
  const { apiKey, secret } = await createApiKey(deps, {
    name: DASHBOARD_KEY_NAME,
    scopes: [SYSTEM_SCOPE],
    ownerUserId: null,
    environment: 'live',
  });
  const made: DashboardKey = { id: apiKey.id, key: apiKey.key, secret };
  await writePrivateFile(dataDir, KEY_FILE, JSON.stringify(made));
  return made;
}

/** SESSION_SECRET when unset: made once and kept, so sessions survive a restart. */
export async function loadOrCreateSessionSecret(dataDir: string): Promise<string> {
  const existing = (await readFile(join(dataDir, SESSION_SECRET_FILE), 'utf8').catch(() => '')).trim();
  if (existing.length >= 32) return existing;
  const secret = randomBytes(32).toString('base64url');
  await writePrivateFile(dataDir, SESSION_SECRET_FILE, secret);
  return secret;
}
