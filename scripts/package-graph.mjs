#!/usr/bin/env node
// The package graph is written once: each workspace's package.json `dependencies`. Everything else
// that restates it is derived here (docs/architecture.md, "Dependencies point down"):
//   - each workspace's tsconfig.json `references` (its @acs/* dependencies, for `tsc -b`),
//   - tsconfig.build.json `references` (every workspace with a tsconfig.json),
//   - the root tsconfig.json `paths` (each @acs/* name to its src/index.ts, for the type-check),
//   - jest's moduleNameMapper (jest.config.js calls jestModuleNameMapper() when it loads).
// Usage: node scripts/package-graph.mjs [--write] [--help]
//   without --write: lists every file that disagrees with the package.json files; exit 1 if any.
//   --write: rewrites those files' derived keys (the rest of each file is kept).
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const readJson = (file) => JSON.parse(readFileSync(path.join(root, file), 'utf8'));
const posix = (p) => p.split(path.sep).join('/');

/** Every workspace of the root package.json, in its order: { dir, name, manifest }. */
export function readWorkspaces() {
  const dirs = readJson('package.json').workspaces.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(path.join(root, pattern.slice(0, -2)))
          .sort()
          .map((name) => `${pattern.slice(0, -2)}/${name}`)
      : [pattern],
  );
  return dirs
    .filter((dir) => existsSync(path.join(root, dir, 'package.json')))
    .map((dir) => {
      const manifest = readJson(`${dir}/package.json`);
      return { dir, name: manifest.name, manifest };
    });
}

/** The workspaces a TypeScript import of `@acs/x` may resolve to: those with a src/index.ts. */
const importable = (workspaces) => workspaces.filter((w) => existsSync(path.join(root, w.dir, 'src/index.ts')));

/** jest's moduleNameMapper: each workspace name to its sources, and `./x.js` to `./x` (SWC runs the .ts). */
export function jestModuleNameMapper(workspaces = readWorkspaces()) {
  const mapper = {};
  for (const w of importable(workspaces)) mapper[`^${w.name.replace('/', '\\/')}$`] = `<rootDir>/${w.dir}/src/index.ts`;
  mapper['^(\\.{1,2}/.*)\\.js$'] = '$1';
  return mapper;
}

/** { file: { key: value } }: the derived keys of every file that carries part of the graph. */
function derivedKeys(workspaces) {
  const byName = new Map(workspaces.map((w) => [w.name, w]));
  const files = {};
  for (const w of workspaces) {
    if (!existsSync(path.join(root, w.dir, 'tsconfig.json'))) continue;
    const references = Object.keys(w.manifest.dependencies ?? {})
      .filter((name) => byName.has(name))
      .map((name) => ({ path: posix(path.relative(w.dir, byName.get(name).dir)) }));
    files[`${w.dir}/tsconfig.json`] = { references };
  }
  files['tsconfig.build.json'] = {
    references: workspaces.filter((w) => existsSync(path.join(root, w.dir, 'tsconfig.json'))).map((w) => ({ path: w.dir })),
  };
  const paths = {};
  for (const w of importable(workspaces)) paths[w.name] = [`${w.dir}/src/index.ts`];
  files['tsconfig.json'] = { 'compilerOptions.paths': paths };
  return files;
}

const getKey = (object, key) => key.split('.').reduce((value, part) => value?.[part], object);
function setKey(object, key, value) {
  const parts = key.split('.');
  const parent = parts.slice(0, -1).reduce((o, part) => o[part], object);
  parent[parts.at(-1)] = value;
}

function main() {
  if (process.argv.includes('--help')) {
    console.log(
      'Usage: node scripts/package-graph.mjs [--write]\n' +
        'Checks that tsconfig references, tsconfig.build.json, the root tsconfig paths agree with the workspaces\n' +
        "package.json dependencies (exit 1 listing each file that does not); --write rewrites them. jest's mapper is derived at load time.",
    );
    return;
  }
  const write = process.argv.includes('--write');
  const stale = [];
  for (const [file, keys] of Object.entries(derivedKeys(readWorkspaces()))) {
    const config = readJson(file);
    const differing = Object.keys(keys).filter((key) => JSON.stringify(getKey(config, key)) !== JSON.stringify(keys[key]));
    if (differing.length === 0) continue;
    stale.push(`${file}: ${differing.join(', ')}`);
    if (write) {
      for (const key of differing) setKey(config, key, keys[key]);
      writeFileSync(path.join(root, file), `${JSON.stringify(config, null, 2)}\n`);
    }
  }
  if (stale.length === 0) return console.log('package graph: tsconfig files agree with package.json');
  if (write) return console.log(`package graph: rewrote\n  ${stale.join('\n  ')}`);
  console.log(`Derived from package.json but different (run node scripts/package-graph.mjs --write):\n  ${stale.join('\n  ')}`);
  process.exitCode = 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) main();
