import { execFile, spawn } from 'node:child_process';
import { mkdir, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
/** One lock for every CLI test: all builds write the shared libs' dist folders, so they take turns. */
const BUILD_LOCK = join(tmpdir(), 'acs-keys-cli-build.lock');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function build(project: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [TSC, '-b', project], { cwd: REPO_ROOT, timeout: 170_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`build failed: ${err.message}\n${stdout}${stderr}`));
      else resolve();
    });
  });
}

async function withBuildLock(work: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 170_000;
  for (;;) {
    try {
      await mkdir(BUILD_LOCK);
      break;
    } catch {
      const age = await stat(BUILD_LOCK).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > 180_000) await rmdir(BUILD_LOCK).catch(() => {});
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${BUILD_LOCK}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    await work();
  } finally {
    await rmdir(BUILD_LOCK).catch(() => {});
  }
}

/**
 * A package's command-line tool as a user runs it: built from the current sources (`tsc -b
 * <package>`; test files run in parallel workers, so builds take a directory lock), then run in
 * a child process with only the given environment (plus PATH and HOME).
 */
export function cliRunner(packageDir: string, options: { entry?: string; killAfterMs?: number } = {}) {
  const cli = join(REPO_ROOT, packageDir, options.entry ?? 'dist/cli.js');
  const killAfterMs = options.killAfterMs ?? 60_000;
  return {
    ROOT: REPO_ROOT,
    CLI: cli,
    buildCli: (): Promise<void> => withBuildLock(() => build(packageDir)),
    runCli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
      return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [cli, ...args], {
          cwd: REPO_ROOT,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        child.on('error', reject);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve({ code, stdout, stderr });
        });
      });
    },
  };
}
