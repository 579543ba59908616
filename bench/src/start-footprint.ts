import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// `npm run bench:start`: what a newcomer's `npm start` costs. First, a fresh clone: `git clone` of
// this repository's HEAD into a temporary folder, its node_modules copied from here (what `npm ci`
// installs, without the network) and `npm ci`'s prepare step run, then `npm start` timed to the
// banner. Then, on this tree: time to the banner and resident memory for a first start (empty
// DATA_DIR) and a second one (data kept), and RSS under steady light traffic. Figures, not
// assertions: see docs/performance.md.
// Usage: npm run bench:start -- [soak minutes, default 10] [requests per second, default 5] [--no-clone]

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
if (process.argv.includes('--help')) {
  console.log('Usage: npm run bench:start -- [soak minutes, default 10] [requests per second, default 5] [--no-clone]');
  process.exit(0);
}
const soakMinutes = Number(positional[0] ?? 10);
const requestsPerSecond = Number(positional[1] ?? 5);

interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
  ms: number;
}

/** `npm start` (scripts/start.mjs: build what is stale, then the launcher) in `repo`, until the banner. */
function start(dataDir: string, repo = REPO): Promise<Started> {
  const began = performance.now();
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', DASHBOARD_PORT: '0', LOG_LEVEL: 'warn', LOG_FORMAT: 'json' };
  const child = spawn(process.execPath, [join(repo, 'scripts/start.mjs')], { env, cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const match = /is running at (http:\/\/[\d.:]+)/.exec(output);
      if (match && output.includes('Press Ctrl-C')) {
        clearInterval(poll);
        resolve({ child, output: () => output, url: match[1]!, ms: performance.now() - began });
      }
    }, 20);
    child.once('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`exited with ${code} before it was ready:\n${output}`));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}

/** Resident set size of the process in MB, from /proc (Linux). */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(/(\d+)/.exec(line ?? '')?.[1] ?? NaN) / 1024);
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fresh clone as a newcomer has it after `npm ci`: no dist, no DATA_DIR; prepare's time and npm start's. */
async function freshClone(): Promise<void> {
  const clone = mkdtempSync(join(tmpdir(), 'acs-fresh-clone-'));
  try {
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', REPO, clone]);
    execFileSync('cp', ['-a', join(REPO, 'node_modules'), join(clone, 'node_modules')]);
    rmSync(join(clone, 'node_modules/.cache'), { recursive: true, force: true }); // made by prepare, as after npm ci
    const prepareBegan = performance.now();
    execFileSync(process.execPath, [join(clone, 'scripts/prepare.mjs')], { cwd: clone, stdio: 'ignore' });
    const prepareSeconds = (performance.now() - prepareBegan) / 1000;
    const started = await start(join(clone, '.data'), clone);
    console.log(
      `fresh clone: npm ci's prepare step ${prepareSeconds.toFixed(2)} s; npm start to the banner ${(started.ms / 1000).toFixed(2)} s`,
    );
    for (const line of started.output().split('\n')) if (/^(building|database): /.test(line)) console.log(`  ${line}`);
    await stop(started.child);
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
}

if (!process.argv.includes('--no-clone')) await freshClone();
const dataDir = mkdtempSync(join(tmpdir(), 'acs-footprint-'));
try {
  const first = await start(dataDir);
  await settle(2000);
  console.log(`first start (empty DATA_DIR): ready in ${(first.ms / 1000).toFixed(2)} s, RSS ${rssMb(first.child.pid!)} MB once ready`);
  const key = /X-Api-Key: +(\S+)/.exec(first.output())?.[1];
  const secret = /X-Api-Secret: +(\S+)/.exec(first.output())?.[1];
  await stop(first.child);

  const second = await start(dataDir);
  await settle(2000);
  const pid = second.child.pid!;
  const ready = rssMb(pid);
  console.log(`second start (data kept):     ready in ${(second.ms / 1000).toFixed(2)} s, RSS ${ready} MB once ready`);

  if (soakMinutes > 0 && key && secret) {
    const headers = { 'X-Api-Key': key, 'X-Api-Secret': secret };
    let sent = 0;
    let failed = 0;
    const traffic = setInterval(() => {
      sent++;
      const path = sent % 2 === 0 ? `/api/Dac?pageSize=5&page=${(sent % 7) + 1}` : '/api/Dac?brand=Topping&pageSize=5';
      fetch(`${second.url}${path}`, { headers })
        .then(async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) failed++;
        })
        .catch(() => failed++);
    }, 1000 / requestsPerSecond);
    let peak = ready;
    for (let minute = 1; minute <= soakMinutes; minute++) {
      await settle(60_000);
      const now = rssMb(pid);
      peak = Math.max(peak, now);
      console.log(`  after ${minute} min of ${requestsPerSecond} req/s: RSS ${now} MB (${sent} requests, ${failed} not 200)`);
    }
    clearInterval(traffic);
    const end = rssMb(pid);
    console.log(
      `soak: ${ready} MB once ready, ${end} MB after ${soakMinutes} min (${(((end - ready) / ready) * 100).toFixed(1)}%), peak ${peak} MB`,
    );
  }
  await stop(second.child);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
