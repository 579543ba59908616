import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ENDPOINTS } from '@acs/contracts';

const root = path.resolve(import.meta.dirname, '../../..');

/**
 * The code that serves the API: the libraries, the services and the gateway (docs/architecture.md,
 * decision 11). Clients of the gateway (the dashboard, bench, tests) call paths; they do not define them.
 */
const SERVING_CODE = ['libs', 'services', 'gateway/src', 'launcher/src'];
const CLIENTS = new Set(['services/dashboard']);

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (['node_modules', 'dist', 'test'].includes(entry.name) || CLIENTS.has(relative)) continue;
    if (entry.isDirectory()) yield* sourceFiles(relative);
    else if (entry.name.endsWith('.ts')) yield relative;
  }
}

const files = SERVING_CODE.flatMap((dir) => [...sourceFiles(dir)]).map((file) => ({
  file,
  text: readFileSync(path.join(root, file), 'utf8'),
}));

/** The path as a whole string literal, in the contract's `{id}` form or a router's `:id` form. */
function literalsOf(endpointPath: string): RegExp {
  const escaped = endpointPath.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  const anyParam = escaped.replace(/\\?\{(\w+)\\?\}/g, '(?:\\{$1\\}|:$1)');
  return new RegExp(`['"\`]${anyParam}['"\`]`);
}

describe('one operation, one place', () => {
  it('scans the serving code', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  // Two operations on one path (GET and POST /api/ApiKeys) each name it in their own file: one place per operation.
  it.each(ENDPOINTS.map((e) => [`${e.method} ${e.path}`, e.path]))(
    '%s: its path is written in its contract file only',
    (_name, endpointPath) => {
      const naming = files.filter(({ text }) => literalsOf(endpointPath).test(text)).map(({ file }) => file);
      const operationsOnPath = ENDPOINTS.filter((e) => e.path === endpointPath).length;
      expect(naming).toHaveLength(operationsOnPath);
      for (const file of naming) expect(file).toMatch(/^libs\/contracts\/src\/endpoints\/[a-z-]+\.ts$/);
    },
  );

  it('gives every operation its own file and a unique method and path', () => {
    const keys = ENDPOINTS.map((e) => `${e.method} ${e.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(ENDPOINTS.map((e) => e.operationId)).size).toBe(ENDPOINTS.length);
  });
});
