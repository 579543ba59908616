import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// PGlite files must have one owner process at a time: a second writer corrupts them. The embedded
// system holds this pid file while it runs; meanwhile the CLIs go through its socket instead.

const LOCK_FILE = 'system.pid';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of the embedded system running on `dataDir`, or null when none is. */
export async function runningPid(dataDir: string): Promise<number | null> {
  const text = await readFile(join(dataDir, LOCK_FILE), 'utf8').catch(() => null);
  const pid = text === null ? NaN : Number(text.trim());
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) ? pid : null;
}

/** Throws when a running embedded system owns `dataDir`. */
export async function assertDataDirFree(dataDir: string): Promise<void> {
  const pid = await runningPid(dataDir);
  if (pid !== null) {
    throw new Error(`The embedded system (pid ${pid}) is using ${dataDir}. Stop it (Ctrl-C in its terminal) and run this command again.`);
  }
}

/** Takes the folder for this process; a stale file from a crashed run is replaced. Returns the release function. */
export async function acquireDataDirLock(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  await assertDataDirFree(dataDir);
  const file = join(dataDir, LOCK_FILE);
  await writeFile(file, String(process.pid));
  return () => rm(file, { force: true });
}
