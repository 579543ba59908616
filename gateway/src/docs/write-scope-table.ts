import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROUTES } from '../routing/route-table.js';
import { withScopeTable } from './scope-table.js';

// `npm run docs:scopes`: rewrites the scope table of docs/errors.md from the route table; a test
// (gateway/test/scope-table.test.ts) fails when the committed page differs from what this writes.
const USAGE = `Usage: npm run docs:scopes [-- --check]

Rewrites the table "which scope opens which endpoint" in docs/errors.md from the gateway's route
table (gateway/src/routing/route-table.ts). With --check, writes nothing and exits 1 when the
committed table is out of date.`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const unknown = args.filter((arg) => arg !== '--check');
if (unknown.length > 0) {
  console.error(`Unknown argument ${unknown[0]}\n\n${USAGE}`);
  process.exit(2);
}
const page = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/errors.md');
const current = readFileSync(page, 'utf8');
const next = withScopeTable(current, ROUTES);
if (args.includes('--check')) {
  if (next !== current) {
    console.error('docs/errors.md: the scope table is out of date; run npm run docs:scopes');
    process.exit(1);
  }
  console.log('docs/errors.md: the scope table matches the route table');
} else {
  writeFileSync(page, next);
  console.log(next === current ? 'docs/errors.md: the scope table was already up to date' : 'docs/errors.md: scope table rewritten');
}
