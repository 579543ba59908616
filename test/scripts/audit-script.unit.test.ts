import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';

// `npm run audit` runs each service's audit CLI in turn; what it refuses, it refuses once, before any of them runs
// (no database is reached: these need no server).
const root = path.resolve(import.meta.dirname, '../..');
const audit = (...args: string[]) => spawnSync(process.execPath, [path.join(root, 'scripts/audit.mjs'), ...args], { encoding: 'utf8' });

describe('npm run audit', () => {
  it('refuses an unknown command once, with exit 1', () => {
    const run = audit('verfy');
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual(['Unknown command "verfy". Run with --help.']);
  });

  it('refuses an unknown --service, and lists the ones it knows', () => {
    const run = audit('verify', '--service', 'device');
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('--service must be one of identity, keys, billing');
  });

  it('prints its usage with --help and exits 0', () => {
    const run = audit('--help');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: npm run audit -- <command>/);
    for (const command of ['verify', 'export', 'prune']) expect(run.stdout).toContain(command);
  });
});
