import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The embedded system's gateway-to-service signing secret: made once, kept (0600) under DATA_DIR. */
export async function loadOrCreateInternalSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, 'internal-secret');
  const existing = await readFile(file, 'utf8').catch(() => null);
  if (existing && existing.trim().length >= 32) return existing.trim();
  await mkdir(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  await writeFile(file, secret, { mode: 0o600 });
  return secret;
}
