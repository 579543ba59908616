import { execFile, spawn } from 'node:child_process';
import { mkdir, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CLI = join(ROOT, 'services/catalog/dist/cli.js');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
// The same lock as services/keys/test/cli-harness.ts: both builds write the shared libs' dist.
const LOCK = join(tmpdir(), 'acs-keys-cli-build.lock');

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [file, ...args], { cwd: ROOT, timeout: 170_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`build failed: ${err.message}\n${stdout}${stderr}`));
      else resolve();
    });
  });
}

/** `tsc -b services/catalog`, so the CLI runs from the current sources; serialised by a directory lock. */
export async function buildCli(): Promise<void> {
  const deadline = Date.now() + 170_000;
  for (;;) {
    try {
      await mkdir(LOCK);
      break;
    } catch {
      const age = await stat(LOCK).then((s) => Date.now() - s.mtimeMs, () => 0);
      if (age > 180_000) await rmdir(LOCK).catch(() => {});
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${LOCK}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    await run(TSC, ['-b', 'services/catalog']);
  } finally {
    await rmdir(LOCK).catch(() => {});
  }
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in a child process with only the given environment (plus PATH and HOME). */
export function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
