import type { Logger } from '@acs/logger';
import { startTracing, type StartTracingOptions } from '@acs/tracing';
import { createCloseStack } from './close-stack.js';
import { stopOnSignals } from './stop-on-signals.js';

interface Closable {
  close(): Promise<void>;
}

/**
 * The last step of a standalone main.ts: starts tracing when the environment asks for it (as
 * `service`, its default service.name), then the process's service, and keeps it until SIGINT or
 * SIGTERM; then closes it and, after it, what main.ts opened for it (`alsoClose`: its Redis cache,
 * its RabbitMQ bus), exporting the spans still queued in between. A failed start is logged as fatal,
 * closes those too, and exits 1.
 */
export async function runStandalone(
  logger: Logger,
  what: string,
  service: string,
  start: () => Promise<Closable>,
  alsoClose: readonly Closable[] = [],
  tracing: Pick<StartTracingOptions, 'explicitContext'> = {},
): Promise<void> {
  const stack = createCloseStack(logger);
  for (const resource of alsoClose) stack.defer(`the ${what}'s connections`, () => resource.close());
  try {
    // Before the service starts: its app adds the span middleware only when tracing is on.
    const traces = await startTracing({ services: [service], logger, ...tracing });
    stack.defer('tracing', () => traces.shutdown());
    const running = await start();
    stack.defer(`the ${what}`, () => running.close());
    stopOnSignals(logger, stack.close);
  } catch (err) {
    logger.fatal({ err }, `${what} failed to start`);
    await stack.close();
    process.exit(1);
  }
}
