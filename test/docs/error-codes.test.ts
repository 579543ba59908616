import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { DEFAULT_CODES } from '@acs/errors';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCE_ROOTS = ['libs', 'services', 'gateway', 'launcher'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (['node_modules', 'dist', 'test'].includes(name)) return [];
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') && full.includes(`${path.sep}src${path.sep}`) ? [full] : [];
  });
}

/**
 * The codes a throw site names: `code: 'x'` in error options, the code argument of the factory
 * shorthands (notFound, badRequest, unprocessable: a snake_case literal last), and the user
 * refusals' reasons. zod's own `code: 'custom'` is an issue code, not ours.
 */
function thrownCodes(text: string): string[] {
  const codes = [...text.matchAll(/\bcode: '([a-z_]+)'/g)].map((m) => m[1]!).filter((code) => code !== 'custom');
  for (const m of text.matchAll(/\b(?:notFound|badRequest|unprocessable)\((?:[^;]|\n)*?,\s*'([a-z]+(?:_[a-z]+)*)',?\s*\)/g))
    codes.push(m[1]!);
  for (const m of text.matchAll(/\binsufficientUserError\(([^)]*)\)/g))
    for (const literal of m[1]!.matchAll(/'([a-z_]+)'/g)) codes.push(literal[1]!);
  return codes;
}

const documented = new Set(
  [...readFileSync(path.join(ROOT, 'docs/errors.md'), 'utf8').matchAll(/^\| \d{3} \| (.+?) \|/gm)].flatMap((m) =>
    [...m[1]!.matchAll(/`([a-z_]+)`/g)].map((c) => c[1]!),
  ),
);

describe('docs/errors.md lists every code an answer can carry', () => {
  const files = SOURCE_ROOTS.flatMap((root) => sourceFiles(path.join(ROOT, root)));
  const thrown = new Map<string, string>();
  for (const file of files) for (const code of thrownCodes(readFileSync(file, 'utf8'))) thrown.set(code, path.relative(ROOT, file));

  it('finds the codes it should (the scan itself works)', () => {
    for (const code of ['email_taken', 'key_limit_reached', 'validation_failed', 'invalid_json', 'subscription_required', 'missing_scope'])
      expect([...thrown.keys()]).toContain(code);
  });

  it.each(Object.values(DEFAULT_CODES))('the default code %s', (code) => {
    expect(documented).toContain(code);
  });

  it('every code a throw site names', () => {
    const missing = [...thrown].filter(([code]) => !documented.has(code)).map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
  });
});
