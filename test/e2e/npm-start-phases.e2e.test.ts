import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';

// Issue 27, item 2: `npm start` says what it is doing, phase by phase; a Ctrl-C at any moment
// stops it cleanly and says so; a busy port names the variable that moves it.
const START = fileURLToPath(new URL('../../scripts/start.mjs', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Run {
  /** Resolves once the output contains `text` (rejects if the process exits first). */
  waitFor(text: string | RegExp): Promise<void>;
  signal(signal: NodeJS.Signals): void;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
}

function npmStart(env: Record<string, string>): Run {
  const dataDir = mkdtempSync(join(tmpdir(), 'acs-phases-'));
  dirs.push(dataDir);
  const child = spawn(process.execPath, [START], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', DASHBOARD_PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters: (() => void)[] = [];
  const onOutput = (chunk: Buffer): void => {
    output += chunk.toString();
    for (const check of waiters.splice(0)) check();
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, output })),
  );
  return {
    waitFor: (text) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (typeof text === 'string' ? output.includes(text) : text.test(output)) resolve();
          else waiters.push(check);
        };
        void exit.then(() => reject(new Error(`exited before printing ${String(text)}:\n${output}`)));
        check();
      }),
    signal: (signal) => child.kill(signal),
    exit,
  };
}

describe('npm start, phase by phase', () => {
  it('prints a line per phase, then the banner, and stops on Ctrl-C saying so', async () => {
    const run = npmStart({});
    await run.waitFor('Press Ctrl-C to stop.');
    run.signal('SIGINT');
    const { code, output } = await run.exit;
    const phases = ['building: ', 'database: opening', 'database: ready', 'keys: listening', 'identity: listening', 'catalog: listening'];
    const more = [
      'device: listening',
      'billing: listening',
      'webhooks: listening',
      'gateway: listening',
      'dashboard: listening',
      'is running at',
    ];
    const positions = [...phases, ...more].map((phase) => output.indexOf(phase));
    expect(positions).not.toContain(-1);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(output).toContain('Stopped.');
    expect(code).toBe(0);
  }, 180_000);

  it('a Ctrl-C in the middle of the start closes what had started and says so (exit 130, no kill)', async () => {
    const run = npmStart({});
    await run.waitFor('database: opening');
    run.signal('SIGINT');
    const { code, signal, output } = await run.exit;
    expect(signal).toBeNull();
    expect(code).toBe(130);
    expect(output).toMatch(/Start-up interrupted \(SIGINT\)/);
    expect(output).not.toContain('is running at');
  }, 180_000);

  it('a busy port is named with the variable that moves it, before anything starts', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      for (const variable of ['PORT', 'DASHBOARD_PORT']) {
        const { code, output } = await npmStart({ [variable]: String(port) }).exit;
        expect(code).toBe(1);
        expect(output).toContain(`Port ${port}`);
        expect(output).toContain(`${variable}=<port>`);
        expect(output).not.toContain('database: opening');
        expect(output).not.toMatch(/\n\s+at /); // no stack trace
      }
    } finally {
      holder.close();
    }
  }, 120_000);
});
