#!/usr/bin/env node
// No test reaches into another package's test/ folder by a relative path (docs/architecture.md,
// "Tests"): such an import is a dependency no package.json declares, breaks when either package
// moves, and hides which harness a test really needs. Shared helpers live in a package: libs/testing
// (no service code) or test/support (@acs/test-support: harnesses that start services).
// A package here is a workspace, or the root for everything outside them (the root's own test/).
// Usage: node scripts/cross-package-test-imports.mjs [--help]   (exit 1 when any is found)
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { readWorkspaces } from './package-graph.mjs';

const root = path.resolve(import.meta.dirname, '..');
const posix = (p) => p.split(path.sep).join('/');

/** Every relative specifier a file imports or re-exports: static, dynamic and `export ... from`. */
export function relativeImportsOf(text) {
  const found = [];
  for (const [, specifier] of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) found.push(specifier);
  return found;
}

/** The workspace directory a repository path belongs to ('' for the root package): the longest one containing it. */
export function packageOf(file, workspaceDirs) {
  return workspaceDirs.filter((dir) => file === dir || file.startsWith(`${dir}/`)).sort((a, b) => b.length - a.length)[0] ?? '';
}

/** Whether a repository path lies in a `test/` folder of its package. */
const inTestFolder = (file, pkg) => (pkg === '' ? file : file.slice(pkg.length + 1)).split('/').includes('test');

/** `importer imports specifier`, for each import of a file in another package's test/ folder. */
export function crossPackageTestImports(files, workspaceDirs) {
  const problems = [];
  for (const { file, text } of files) {
    const from = packageOf(file, workspaceDirs);
    for (const specifier of relativeImportsOf(text)) {
      const target = posix(path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)));
      const to = packageOf(target, workspaceDirs);
      if (to !== from && inTestFolder(target, to)) {
        problems.push(`${file} imports ${specifier}, in the test/ folder of ${to || 'the root package'}: import a package instead`);
      }
    }
  }
  return problems;
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    if (['node_modules', 'dist', '.git', '.data'].includes(entry.name)) continue;
    const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) yield* sourceFiles(relative);
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) yield relative;
  }
}

function main() {
  if (process.argv.includes('--help')) {
    console.log(
      'Usage: node scripts/cross-package-test-imports.mjs\n' +
        "Lists relative imports of another package's test/ folder (a package: a workspace, or the root); exit 1 when any is found.",
    );
    return;
  }
  const workspaceDirs = readWorkspaces().map((w) => w.dir);
  const files = [...sourceFiles('')].map((file) => ({ file, text: readFileSync(path.join(root, file), 'utf8') }));
  const problems = crossPackageTestImports(files, workspaceDirs);
  if (problems.length === 0) return console.log("test imports: none reaches into another package's test/ folder");
  console.log(problems.sort().join('\n'));
  process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) main();
