#!/usr/bin/env node
// Every workspace must declare the workspaces it imports (in dependencies, or devDependencies when
// only its tests import them): npm links workspaces at the root, so an undeclared import works here
// by accident and breaks the moment a package is built, deployed or tested alone.
// Usage: node scripts/undeclared-workspaces.mjs [--help]   (exit 1 when any is found)
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { readWorkspaces } from './package-graph.mjs';

if (process.argv.includes('--help')) {
  console.log(
    'Usage: node scripts/undeclared-workspaces.mjs\nLists imports of @acs/* workspaces a package does not declare; exit 1 when any is found.',
  );
  process.exit(0);
}

const root = path.resolve(import.meta.dirname, '..');

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) yield full;
  }
}

const problems = [];
for (const { dir, manifest } of readWorkspaces()) {
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {}), manifest.name]);
  for (const file of sourceFiles(path.join(root, dir))) {
    for (const [, name] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(@acs\/[a-z-]+)'/g)) {
      if (!declared.has(name)) problems.push(`${path.relative(root, file)} imports ${name}, which ${manifest.name} does not declare`);
    }
  }
}
if (problems.length > 0) {
  console.log([...new Set(problems)].sort().join('\n'));
  process.exit(1);
}
console.log('workspace imports: all declared');
