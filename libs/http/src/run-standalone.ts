import type { Logger } from '@acs/logger';
import { createCloseStack } from './close-stack.js';
import { stopOnSignals } from './stop-on-signals.js';

interface Closable {
  close(): Promise<void>;
}

/**
 * The last step of a standalone main.ts: starts the process's service and keeps it until SIGINT or
 * SIGTERM, then closes it and, after it, what main.ts opened for it (`alsoClose`: its Redis cache,
 * its RabbitMQ bus). A failed start is logged as fatal, closes those too, and exits 1.
 */
export async function runStandalone(
  logger: Logger,
  what: string,
  start: () => Promise<Closable>,
  alsoClose: readonly Closable[] = [],
): Promise<void> {
  const stack = createCloseStack(logger);
  for (const resource of alsoClose) stack.defer(`the ${what}'s connections`, () => resource.close());
  try {
    const service = await start();
    stack.defer(`the ${what}`, () => service.close());
    stopOnSignals(logger, stack.close);
  } catch (err) {
    logger.fatal({ err }, `${what} failed to start`);
    await stack.close();
    process.exit(1);
  }
}
