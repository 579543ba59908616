import { loadConfigOrExit } from '@acs/config';
import { createLogger } from '@acs/logger';
import { stopOnSignals } from '@acs/http';
import { startTracing } from '@acs/tracing';
import { launcherConfigSchema } from './config.js';
import { startSystem } from './system.js';
import { printBanner } from './banner.js';
import { collectGarbageOnce } from './collect-garbage.js';
import { StartInterrupted, type StartGuard } from './start-interrupt.js';
import { assertPublicPortsFree, busyPortAdvice } from './busy-port.js';

// `npm start` once main.ts holds the signals: the whole platform on one machine with nothing installed but Node.
export async function run(guard: StartGuard): Promise<void> {
  const config = loadConfigOrExit('npm start', launcherConfigSchema);
  const logger = createLogger({
    name: 'platform',
    level: config.LOG_LEVEL,
    format: config.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json'),
  });
  /** Every service of the system runs here, each reporting its own service.name (README, "Tracing"). */
  const TRACED_SERVICES = ['gateway', 'keys', 'identity', 'catalog', 'device', 'billing', 'webhooks', 'dashboard'];
  /** One line per phase on stdout (not the log): what the start is waiting for; stops here after a Ctrl-C. */
  const progress = (line: string): void => {
    guard.check();
    process.stdout.write(`${line}\n`);
  };
  try {
    await assertPublicPortsFree(config);
    // Before the services start: their apps add the span middleware only when tracing is on.
    const tracing = await startTracing({ services: TRACED_SERVICES, defaultService: 'platform', logger });
    let system: Awaited<ReturnType<typeof startSystem>>;
    try {
      system = await startSystem(config, logger, progress);
      guard.check(); // a signal during the last phase
    } catch (err) {
      await tracing.shutdown();
      throw err;
    }
    // Taken over before the start's guard lets go: with no listener at all, a SIGINT kills the
    // process at once (node installs its handler only while one listens), e.g. during the GC below.
    stopOnSignals(logger, async () => {
      process.stdout.write('Stopping (Ctrl-C): finishing requests in flight, closing the services...\n');
      await system.stop();
      await tracing.shutdown();
      process.stdout.write('Stopped.\n');
    });
    guard.release();
    // From the process's start (node's own clock), the time a newcomer waits after `npm start`'s build.
    printBanner(config, system, process.uptime());
    if (!config.DATABASE_URL) collectGarbageOnce();
  } catch (err) {
    if (err instanceof StartInterrupted) {
      // startSystem closed what had started before the error reached here.
      process.stderr.write(`Start-up interrupted (${err.signal}); everything it had started is stopped.\n`);
      process.exit(130);
    }
    const advice = busyPortAdvice(err, config);
    if (advice) {
      logger.debug({ err }, 'a port is in use');
      process.stderr.write(`\nThe system failed to start. ${advice}\n`);
      process.exit(1);
    }
    logger.fatal({ err }, 'the system failed to start');
    process.stderr.write(`\nThe system failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
