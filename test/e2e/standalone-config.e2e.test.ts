import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Each process validates its environment at start: a bad value names the variable and exits 1.
const run = (entry: string, env: Record<string, string>) => {
  const path = fileURLToPath(new URL(`../../${entry}`, import.meta.url));
  if (!existsSync(path)) throw new Error(`${path} is missing: run npm run build first (npm test does)`);
  return spawnSync(process.execPath, [path], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 20_000 });
};

describe('standalone processes refuse a bad environment', () => {
  it('catalog: missing INTERNAL_SECRET, bad PORT', () => {
    const result = run('services/catalog/dist/main.js', { PORT: 'eighty' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('catalog: invalid configuration');
    expect(result.stderr).toMatch(/INTERNAL_SECRET: /);
    expect(result.stderr).toMatch(/PORT: expected a TCP port number/);
  });

  it('gateway: KEYS_URL that is not a URL, REDIS_URL missing', () => {
    const bad = run('gateway/dist/main.js', { INTERNAL_SECRET: 'x'.repeat(32), KEYS_URL: 'keys:8081' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/KEYS_URL: expected a URL starting with http:\/\/ or https:\/\//);
    const noRedis = run('gateway/dist/main.js', { INTERNAL_SECRET: 'x'.repeat(32), KEYS_URL: 'http://127.0.0.1:1' });
    expect(noRedis.status).toBe(1);
    expect(noRedis.stderr).toMatch(/REDIS_URL: required/);
  });

  it('npm start: a short INTERNAL_SECRET and a bad KEY_PREFIX', () => {
    const result = run('launcher/dist/main.js', { INTERNAL_SECRET: 'short', KEY_PREFIX: 'Bad_Prefix' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/INTERNAL_SECRET: expected at least 32 characters/);
    expect(result.stderr).toMatch(/KEY_PREFIX: /);
  });
});
