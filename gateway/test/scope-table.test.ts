import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { ROUTES } from '@acs/gateway';
import { renderScopeTable, withScopeTable } from '../src/docs/scope-table.js';

const PAGE = new URL('../../docs/errors.md', import.meta.url);

describe('the scope table of docs/errors.md', () => {
  it('is the one npm run docs:scopes writes from the route table (run it after changing a route)', () => {
    const committed = readFileSync(PAGE, 'utf8');
    expect(withScopeTable(committed, ROUTES)).toBe(committed);
  });

  it('has a row per route, and a key opens what grantsScope lets it open', () => {
    const rows = renderScopeTable(ROUTES).split('\n').slice(2);
    expect(rows).toHaveLength(ROUTES.length);
    const catalog = rows.find((row) => row.startsWith('| `GET /api/Dac` '));
    expect(catalog).toContain('`read:devices`, `write:devices`, `system:full-access`');
    const keys = rows.find((row) => row.startsWith('| `POST /api/ApiKeys` '));
    expect(keys).toContain('role 1 (subscriber) or higher');
  });

  it('refuses a page without the markers rather than appending somewhere', () => {
    expect(() => withScopeTable('# no table here\n', ROUTES)).toThrow(/scope-table:begin/);
  });
});
