import type { Logger } from '@acs/logger';

export interface PeriodicPurge {
  /** Stops the timer and waits for a pass in flight. */
  stop(): Promise<void>;
  /**
   * Resolves when the pass in flight, if any, is done (the first one starts with the timer). For a caller
   * that must not race a pass, e.g. a test that counts what its own pass recorded.
   */
  settled(): Promise<void>;
}

/**
 * Runs `purge` now and then every `everyMs` (unref'd: it never keeps the process alive), logging what it
 * deleted (`done`) or why it failed (`failed`, tried again at the next tick). Replicas running it at once
 * overlap harmlessly when the purge deletes by age in small batches.
 */
export function startPeriodicPurge(
  purge: () => Promise<number>,
  everyMs: number,
  logger: Logger,
  messages: { done: string; failed: string; context?: Record<string, unknown> },
): PeriodicPurge {
  let running: Promise<void> = Promise.resolve();
  const run = (): void => {
    running = purge().then(
      (deleted) => {
        if (deleted > 0) logger.info({ deleted, ...messages.context }, messages.done);
      },
      (err: unknown) => logger.warn({ err }, messages.failed),
    );
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  run();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
    settled: () => running,
  };
}
