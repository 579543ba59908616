import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

// Issue 27, item 1: the README's curl tour stays true. Its ```sh tour blocks are run in order,
// in one bash session, against `npm start` as the tour starts it (TRIAL_DURATION_SECONDS=0) on a
// temporary DATA_DIR and free ports; GW, SYS_KEY and SYS_SECRET are what the tour says to copy
// from the banner. Each block's `# expect:` line must appear in that block's output.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const dataDir = mkdtempSync(join(tmpdir(), 'acs-readme-tour-'));

interface TourStep {
  script: string;
  expect: string[];
}

/** The tour's blocks, in order; `# expect:` lines are comments to bash and expectations here. */
function tourSteps(markdown: string): TourStep[] {
  return [...markdown.matchAll(/^```sh tour\n([\s\S]*?)^```$/gm)].map((match) => ({
    script: match[1]!,
    expect: [...match[1]!.matchAll(/^# expect: (.+)$/gm)].map((line) => line[1]!),
  }));
}

let system: ChildProcess;
let banner = '';

beforeAll(async () => {
  system = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
      PORT: '0',
      DASHBOARD_PORT: '0',
      LOG_LEVEL: 'warn',
      TRIAL_DURATION_SECONDS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  system.stdout!.on('data', (chunk: Buffer) => (banner += chunk.toString()));
  system.stderr!.on('data', (chunk: Buffer) => (banner += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (banner.includes('Press Ctrl-C')) {
        clearInterval(poll);
        resolve();
      }
    }, 100);
    system.once('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`npm start exited with ${code}:\n${banner}`));
    });
  });
}, 240_000);

afterAll(async () => {
  if (system?.exitCode === null) {
    const exited = new Promise((resolve) => system.once('exit', resolve));
    system.kill('SIGINT');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the README tour', () => {
  it('has the steps the issue asks for, each with an expectation', () => {
    const steps = tourSteps(README);
    expect(steps.length).toBeGreaterThanOrEqual(8);
    for (const step of steps) expect(step.expect.length).toBeGreaterThan(0);
    const all = steps.map((step) => step.script).join('\n');
    for (const endpoint of [
      'Users/Register',
      'Users/Login',
      'api/ApiKeys',
      'cursor=',
      'If-None-Match',
      'Devices/Register',
      'api/Subscriptions',
      '-X DELETE',
    ])
      expect(all).toContain(endpoint);
  });

  it('runs step by step against npm start, each step answering what the README says', async () => {
    const gateway = /is running at (http:\/\/[\d.:]+)/.exec(banner)![1]!;
    const key = /X-Api-Key: +(\S+)/.exec(banner)![1]!;
    const secret = /X-Api-Secret: +(\S+)/.exec(banner)![1]!;
    const steps = tourSteps(README);
    // One session, as a reader pastes the blocks into one terminal: variables carry over.
    // A newline before each marker: a step's output need not end with one.
    const script = steps.map((step, i) => `printf '\\n@@step ${i}\\n'\n${step.script}`).join('\n');
    const { stdout } = await promisify(execFile)('bash', ['-c', script], {
      env: { PATH: process.env.PATH ?? '', GW: gateway, SYS_KEY: key, SYS_SECRET: secret },
      maxBuffer: 10 * 1024 * 1024,
    });
    const outputs = stdout.split(/^@@step \d+\n/m).slice(1);
    expect(outputs).toHaveLength(steps.length);
    steps.forEach((step, i) => {
      for (const expected of step.expect)
        expect({ step: i, output: outputs[i] }).toEqual({ step: i, output: expect.stringContaining(expected) });
    });
  }, 120_000);
});
