import type { Logger } from '@acs/logger';

/**
 * SIGINT/SIGTERM run `stop` once (finish in-flight requests, close pools), then exit 0.
 * A second signal, or a stop that hangs past the grace period, exits at once with 1.
 */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>, graceMs = 10_000): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'stopping');
    const timer = setTimeout(() => {
      logger.error('stop took too long; exiting');
      process.exit(1);
    }, graceMs);
    timer.unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
