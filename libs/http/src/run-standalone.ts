import type { Logger } from '@acs/logger';
import { startTracing, type StartTracingOptions } from '@acs/tracing';
import { closeTogether, createCloseStack, type NamedStep } from './close-stack.js';
import { stopOnSignals } from './stop-on-signals.js';

interface Closable {
  close(): Promise<void>;
}

/*
 * How long each part of a stop may take before it is left behind (logged by name), so the process
 * exits 0 within stopOnSignals' 10 s even when a peer never answers a close (QUIT's reply, AMQP's
 * close-ok, a FIN through a proxy) or a name does not resolve (a pool's new connection waiting on a
 * DNS server that drops queries: glibc asks again after 5 s): first the service (its HTTP server
 * drains for up to 5 s, then its own pools and consumers), then main.ts's connections and the spans
 * still queued, all at once. At most 6 + 1 s here; the cache's QUIT already gives up after its 1 s
 * command timeout.
 */
const SERVICE_STOP_MS = 6_000;
const CONNECTION_CLOSE_MS = 1_000;
const TRACING_FLUSH_MS = 1_000;

/**
 * The last step of a standalone main.ts: starts tracing when the environment asks for it (as
 * `service`, its default service.name), then the process's service, and keeps it until SIGINT or
 * SIGTERM; then closes it and, after it, what main.ts opened for it (`alsoClose`: its Redis cache,
 * its RabbitMQ bus) together with the export of the spans still queued. A failed start is logged as
 * fatal, closes those too, and exits 1.
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
  const afterService: NamedStep[] = alsoClose.map((resource) => ({
    name: `the ${what}'s connections`,
    step: () => resource.close(),
    withinMs: CONNECTION_CLOSE_MS,
  }));
  stack.defer(`the ${what}'s connections and spans`, () => closeTogether(logger, afterService));
  try {
    // Before the service starts: its app adds the span middleware only when tracing is on.
    const traces = await startTracing({ services: [service], logger, ...tracing });
    // Tracing joins main.ts's connections once it is running (a start that fails before has none to flush).
    afterService.push({ name: 'tracing', step: () => traces.shutdown(), withinMs: TRACING_FLUSH_MS });
    const running = await start();
    stack.defer(`the ${what}`, () => running.close(), SERVICE_STOP_MS);
    stopOnSignals(logger, stack.close);
  } catch (err) {
    logger.fatal({ err }, `${what} failed to start`);
    await stack.close();
    process.exit(1);
  }
}
