#!/usr/bin/env node
// npm's `prepare` step (after `npm ci` / `npm install`): what a first `npm start` would otherwise
// do while a newcomer waits. Transpiles the sources (build-for-start.mjs) and makes the embedded
// database's template (libs/db pglite-template.ts: initdb once, unpacked by each new DATA_DIR).
// Never fails the install: a step that fails is said and left to `npm start`.
// Usage: node scripts/prepare.mjs [--help]
import { execFileSync } from 'node:child_process';
import path from 'node:path';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`Usage: node scripts/prepare.mjs

Run by npm after npm ci / npm install: transpiles the sources for npm start and makes the
embedded database's template under node_modules/.cache/acs-platform. Exits 0 even when a step
fails (npm start then does that step itself).`);
  process.exit(0);
}
const root = path.resolve(import.meta.dirname, '..');
try {
  execFileSync(process.execPath, [path.join(root, 'scripts/build-for-start.mjs')], { stdio: 'inherit' });
  const started = performance.now();
  const { makePgliteTemplate } = await import(path.join(root, 'libs/db/dist/pglite/pglite-template.js'));
  const file = await makePgliteTemplate();
  console.log(
    `prepare: embedded database template ready in ${((performance.now() - started) / 1000).toFixed(1)} s (${path.relative(root, file)})`,
  );
} catch (err) {
  console.warn(`prepare: skipped (${err instanceof Error ? err.message : String(err)}); npm start will do it on its first run`);
}
