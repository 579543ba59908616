import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@acs/logger';

// DATA_DIR holds the embedded database (API keys in its WAL, bcrypt hashes in its tables) and the
// generated secrets: no other local user may read or write any of it. Processes that open it set
// `privateFileModes()` first, so what they create is 0700/0600; a folder made by an older version
// (under the usual umask 022) is tightened once by `makeDataDirPrivate`.

/** Group and other permission bits: what a private file must not have. */
const SHARED_BITS = 0o077;

/** From here on, what this process creates is its user's alone (folders 0700, files 0600). Call it before anything opens DATA_DIR. */
export function privateFileModes(): void {
  process.umask(SHARED_BITS);
}

/** Removes the group and other bits from `path` and everything below it (symbolic links are left alone); returns how many it changed. */
export async function tighten(path: string): Promise<number> {
  const info = await lstat(path).catch(() => null);
  if (!info || info.isSymbolicLink()) return 0;
  let changed = 0;
  if (info.mode & SHARED_BITS) {
    await chmod(path, info.mode & 0o700);
    changed++;
  }
  if (info.isDirectory()) {
    for (const entry of await readdir(path)) changed += await tighten(join(path, entry));
  }
  return changed;
}

/**
 * Creates DATA_DIR private, or makes an existing one private: every folder and file in it loses its
 * group and other permissions. One log line says so when anything was open.
 */
export async function makeDataDirPrivate(dataDir: string, logger: Logger): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const changed = await tighten(dataDir);
  if (changed > 0) {
    logger.warn(
      { dataDir, changed },
      `made DATA_DIR private: ${changed} folders and files in ${dataDir} were open to other local users (group and other permissions removed)`,
    );
  }
}
