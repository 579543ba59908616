import { StartInterrupted, guardStart } from './start-interrupt.js';
import type { run as runSystem } from './run.js';

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
