#!/usr/bin/env node
// `npm start`'s build: transpiles each workspace's src/**/*.ts to dist/**/*.js with SWC (types
// stripped, no type-checking), only the files whose output is missing or older than the source.
// A fresh clone transpiles ~300 files in about a second where `tsc -b` takes 20-60 s; a second
// start finds nothing to do. Type-checking stays where it fails loudly: `npm test` (tsc -b, then
// tsc --noEmit) and `npm run lint`. `tsc -b` later overwrites these files with its own output.
// Usage: node scripts/build-for-start.mjs [--help] [--quiet]
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { pathToFileURL } from 'node:url';

const runAsScript = import.meta.url === pathToFileURL(process.argv[1] ?? '').href;
if (runAsScript && (process.argv.includes('--help') || process.argv.includes('-h'))) {
  console.log(`Usage: node scripts/build-for-start.mjs [--quiet]

Transpiles every workspace's src/**/*.ts to dist/**/*.js with SWC where the output is missing or
older than its source (what npm start runs before starting). No type-checking: npm test and
npm run lint do that. --quiet prints nothing when there was nothing to do.`);
  process.exit(0);
}
const ROOT = path.resolve(import.meta.dirname, '..');

/** The same output settings as jest's SWC transform: ES modules, ES2022, imports kept as written. */
const SWC_OPTIONS = {
  jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  module: { type: 'es6' },
  sourceMaps: false,
  swcrc: false,
  configFile: false,
};

async function workspaces() {
  const { workspaces: patterns } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
  const dirs = [];
  for (const pattern of patterns) {
    if (!pattern.endsWith('/*')) {
      dirs.push(path.join(ROOT, pattern));
      continue;
    }
    const parent = path.join(ROOT, pattern.slice(0, -2));
    for (const entry of await readdir(parent, { withFileTypes: true })) if (entry.isDirectory()) dirs.push(path.join(parent, entry.name));
  }
  return dirs;
}

async function typescriptSources(dir) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name));
}

const mtimeOrZero = (file) =>
  stat(file).then(
    (s) => s.mtimeMs,
    () => 0,
  );

async function transpileIfStale(transform, source, output) {
  const [sourceTime, outputTime] = await Promise.all([mtimeOrZero(source), mtimeOrZero(output)]);
  if (outputTime >= sourceTime) return false;
  const { code } = await transform(await readFile(source, 'utf8'), { ...SWC_OPTIONS, filename: source });
  await mkdir(path.dirname(output), { recursive: true });
  // Renamed into place: a Ctrl-C mid-build leaves each output whole or absent (a half-written one
  // would look up to date next time).
  await writeFile(`${output}.${process.pid}.partial`, code);
  await rename(`${output}.${process.pid}.partial`, output);
  return true;
}

/** Transpiles what is stale; prints one line (none with `quiet` when nothing was to do). */
export async function buildForStart({ quiet = false } = {}) {
  const { transform } = await import('@swc/core');
  const started = performance.now();
  const jobs = [];
  for (const workspace of await workspaces()) {
    // Only the workspaces tsc -b builds (a tsconfig.json): test/support is test code, run from its sources.
    if (!existsSync(path.join(workspace, 'tsconfig.json'))) continue;
    const src = path.join(workspace, 'src');
    for (const source of await typescriptSources(src)) {
      const output = path.join(workspace, 'dist', path.relative(src, source)).replace(/\.ts$/, '.js');
      jobs.push(transpileIfStale(transform, source, output));
    }
  }
  const written = (await Promise.all(jobs)).filter(Boolean).length;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (written > 0 || !quiet) {
    console.log(
      written > 0
        ? `building: ${written} of ${jobs.length} files transpiled in ${seconds} s (SWC; type-checking is npm test's and npm run lint's job)`
        : `building: up to date (${jobs.length} files checked in ${seconds} s)`,
    );
  }
}

if (runAsScript) await buildForStart({ quiet: process.argv.includes('--quiet') });
