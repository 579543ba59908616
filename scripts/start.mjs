#!/usr/bin/env node
// `npm start`: builds what is stale (build-for-start.mjs, SWC) and starts the system
// (launcher/dist/main.js), in one process. A Ctrl-C is handled from the first line: until the
// launcher takes over, it stops here, saying so (a build writes each file whole, so nothing is
// left half done). Usage: npm start (see the README and docs/configuration.md for the variables).
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const interrupted = () => {
  console.log('\nStart-up interrupted (Ctrl-C) before anything had started.');
  process.exit(130);
};
process.once('SIGINT', interrupted);
process.once('SIGTERM', interrupted);
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`Usage: npm start

Builds what changed (SWC, no type-checking) and starts the whole system: the gateway on
http://127.0.0.1:8080, the account dashboard on :8086, every service behind them, with an
embedded PostgreSQL under ./.data. Variables: docs/configuration.md. Ctrl-C stops it.`);
  process.exit(0);
}
const root = path.resolve(import.meta.dirname, '..');
const { buildForStart } = await import(pathToFileURL(path.join(root, 'scripts/build-for-start.mjs')).href);
await buildForStart();
// The launcher's guard takes the signals over before this handler lets go (with no listener at
// all a SIGINT would kill the process at once); main.js then finds the same guard.
const { guardStart } = await import(pathToFileURL(path.join(root, 'launcher/dist/start-interrupt.js')).href);
guardStart();
process.off('SIGINT', interrupted);
process.off('SIGTERM', interrupted);
await import(pathToFileURL(path.join(root, 'launcher/dist/main.js')).href);
