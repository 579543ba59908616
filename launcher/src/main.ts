import { loadConfigOrExit } from '@acs/config';
import { createLogger } from '@acs/logger';
import { stopOnSignals } from '@acs/http';
import { startTracing } from '@acs/tracing';
import { launcherConfigSchema } from './config.js';
import { startSystem } from './system.js';
import { printBanner } from './banner.js';
import { collectGarbageOnce } from './collect-garbage.js';
import { privateFileModes } from '@acs/db';

// `npm start`: the whole platform on one machine with nothing installed but Node.
// First: every file it writes under DATA_DIR (database, secrets, socket) is its user's alone.
privateFileModes();
const config = loadConfigOrExit('npm start', launcherConfigSchema);
const logger = createLogger({
  name: 'platform',
  level: config.LOG_LEVEL,
  format: config.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
});
/** Every service of the system runs here, each reporting its own service.name (README, "Tracing"). */
const TRACED_SERVICES = ['gateway', 'keys', 'identity', 'catalog', 'device', 'billing', 'dashboard'];
try {
  // Before the services start: their apps add the span middleware only when tracing is on.
  const tracing = await startTracing({ services: TRACED_SERVICES, defaultService: 'platform', logger });
  const system = await startSystem(config, logger);
  // From the process's start (node's own clock), the time a newcomer waits after `npm start`'s build check.
  printBanner(config, system, process.uptime());
  if (!config.DATABASE_URL) collectGarbageOnce();
  stopOnSignals(logger, async () => {
    await system.stop();
    await tracing.shutdown();
  });
} catch (err) {
  logger.fatal({ err }, 'the system failed to start');
  process.stderr.write(`\nThe system failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
