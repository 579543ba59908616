import { StartInterrupted, guardStart } from './start-interrupt.js';
import type { run as runSystem } from './run.js';

// Every file npm start writes under DATA_DIR (database, keys, socket) is its user's alone (docs/security.md):
// the umask is set before anything opens the folder (libs/db privateFileModes, inlined so nothing loads first).
process.umask(0o077);

// `npm start`'s entry. Signals are taken before anything else loads: loading the services' code
// takes seconds on a busy machine, and a Ctrl-C then must stop the start cleanly, not kill it.
const guard = guardStart();
try {
  const { run }: { run: typeof runSystem } = await import('./run.js');
  guard.check();
  await run(guard);
} catch (err) {
  if (!(err instanceof StartInterrupted)) throw err;
  process.stderr.write(`Start-up interrupted (${err.signal}) before anything had started.\n`);
  process.exit(130);
}
