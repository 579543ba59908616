import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// `npm run bench:start`: what a newcomer's `npm start` costs on a built tree. Time to the banner
// and resident memory once ready, for a first start (empty DATA_DIR) and a second one (data kept),
// then RSS under steady light traffic. Figures, not assertions: see docs/performance.md.
// Usage: npm run bench:start -- [soak minutes, default 10] [requests per second, default 5]

const ENTRY = fileURLToPath(new URL('../../launcher/dist/main.js', import.meta.url));
const soakMinutes = Number(process.argv[2] ?? 10);
const requestsPerSecond = Number(process.argv[3] ?? 5);

interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
  ms: number;
}

function start(dataDir: string): Promise<Started> {
  const began = performance.now();
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', DASHBOARD_PORT: '0', LOG_LEVEL: 'warn', LOG_FORMAT: 'json' };
  const child = spawn(process.execPath, [ENTRY], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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
