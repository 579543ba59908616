#!/usr/bin/env node
// Long functions are where inner functions hide without names, tests or imports of their own
// (issue 26, "Code you can see"). This lists every function longer than a limit, measured from its
// first line to its last (comments inside count), in the TypeScript sources (not tests, not dist).
// Usage: node scripts/long-functions.mjs [--max N] [--check] [dir ...]   (default: --max 60, every source folder)
//   --check: exit 1 when any is found (`npm run lint` checks every source folder against 60 lines).
// Test files and packages' test/ folders are not checked (a describe block is long by nature); the shared
// harnesses under the root test/ folder are.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');

/** The name a reader would look for: the function's own, its variable's, its property's or its class member's. */
function nameOf(node, source) {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

/** Every function-like node of a file longer than `max` lines: { name, line, lines }. */
export function longFunctions(text, fileName, max) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      if (last - first + 1 > max) found.push({ name: nameOf(node, source), line: first, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function* typescriptSources(dir) {
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    if (['node_modules', 'dist', 'test'].includes(entry.name)) continue;
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) yield* typescriptSources(relative);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.test.ts')) yield relative;
  }
}

/** Every workspace's sources (the gateway, the launcher, the bench, each package under libs/ and services/) and the root test/ folder's harnesses. */
const SOURCE_FOLDERS = ['gateway/src', 'launcher/src', 'bench/src', 'libs', 'services', 'test'];

function main() {
  const args = process.argv.slice(2);
  if (args.includes('--help')) {
    console.log(
      `Usage: node scripts/long-functions.mjs [--max N] [--check] [dir ...]\nLists functions longer than N lines (default 60) in the TypeScript sources of the folders (default: ${SOURCE_FOLDERS.join(' ')}; test/ and dist/ folders are skipped).`,
    );
    return;
  }
  const maxAt = args.indexOf('--max');
  const max = maxAt >= 0 ? Number(args[maxAt + 1]) : 60;
  const dirs = args.filter((arg, i) => !arg.startsWith('--') && i !== maxAt + 1);
  const found = [];
  for (const dir of dirs.length > 0 ? dirs : SOURCE_FOLDERS) {
    for (const file of typescriptSources(dir)) {
      for (const fn of longFunctions(readFileSync(path.join(root, file), 'utf8'), file, max)) found.push({ file, ...fn });
    }
  }
  found.sort((a, b) => b.lines - a.lines);
  if (found.length === 0)
    return console.log(`long functions: none over ${max} lines in ${(dirs.length > 0 ? dirs : SOURCE_FOLDERS).join(', ')}`);
  console.log(found.map((f) => `${f.lines} lines: ${f.name} (${f.file}:${f.line})`).join('\n'));
  if (args.includes('--check')) process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) main();
