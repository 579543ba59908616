import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// `npm start` as a newcomer runs it: no servers, embedded PGlite and cache, data under DATA_DIR.
const ENTRY = fileURLToPath(new URL('../../launcher/dist/main.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'acs-npm-start-'));

interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
}

function start(): Promise<Started> {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run npm run build first (npm test does)`);
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' };
  const child = spawn(process.execPath, [ENTRY], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 90 s:\n${output}`)), 90_000);
    const poll = setInterval(() => {
      const match = /is running at (http:\/\/[\d.:]+)/.exec(output);
      if (match && output.includes('Press Ctrl-C')) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve({ child, output: () => output, url: match[1]! });
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before it was ready:\n${output}`));
    });
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGINT');
  });
}

let first: Started;
let credentials: { key: string; secret: string };

beforeAll(async () => {
  first = await start();
}, 120_000);
afterAll(() => {
  if (first && first.child.exitCode === null) first.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start (embedded mode)', () => {
  it('prints a system key once, with a curl line that serves seeded products', async () => {
    const out = first.output();
    const key = /X-Api-Key: +(\S+)/.exec(out)?.[1];
    const secret = /X-Api-Secret: +(\S+)/.exec(out)?.[1];
    expect(key).toMatch(/^acs_live_[A-Za-z0-9]+$/);
    expect(secret).toBeDefined();
    credentials = { key: key!, secret: secret! };
    const curlUrl = /curl -s '([^']+)'/.exec(out)?.[1];
    expect(curlUrl).toContain(first.url);
    const res = await fetch(curlUrl!, { headers: { 'X-Api-Key': key!, 'X-Api-Secret': secret! } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: { brand: string }[]; total: number };
    expect(body.total).toBeGreaterThan(0);
    expect(body.items.every((i) => i.brand === 'Topping')).toBe(true);
  });

  it('keeps the secret out of its log lines', () => {
    const logLines = first.output().split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.some((line) => line.includes(credentials.secret))).toBe(false);
  });

  it('refuses a second instance on the same DATA_DIR', async () => {
    await expect(start()).rejects.toThrow(/is using/);
  }, 60_000);

  it('stops cleanly on Ctrl-C and keeps its data for the next start', async () => {
    expect(await stop(first.child)).toBe(0);
    const second = await start();
    try {
      expect(second.output()).not.toContain('X-Api-Secret'); // no new system key: the first one persisted
      const res = await fetch(`${second.url}/api/Dac?pageSize=1`, { headers: { 'X-Api-Key': credentials.key, 'X-Api-Secret': credentials.secret } });
      expect(res.status).toBe(200);
    } finally {
      expect(await stop(second.child)).toBe(0);
    }
  }, 120_000);
});
