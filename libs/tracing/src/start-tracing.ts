import type { Logger } from '@acs/logger';
import { readTracingSettings } from './settings.js';
import { setTracingOn } from './switch.js';
import type { startSdk as StartSdk } from './sdk.js';

export interface Tracing {
  readonly on: boolean;
  /** Exports the spans still queued (the close stack runs it after the servers have stopped). Idempotent. */
  shutdown(): Promise<void>;
}

export interface StartTracingOptions {
  /** The services this process runs: one for a standalone main.ts, all of them under `npm start`. */
  services: readonly string[];
  /** Gets spans no service's code made (start-up work of `npm start`); a standalone process passes its service. */
  defaultService?: string;
  logger: Logger;
  /**
   * The process passes span contexts explicitly and needs none carried across awaits (the gateway alone):
   * a synchronous context manager instead of AsyncLocalStorage, whose hook on Node 20 costs every promise
   * of the process about 0.17 µs once enabled (docs/performance.md), whatever share of requests is traced.
   */
  explicitContext?: boolean;
}

const OFF: Tracing = { on: false, shutdown: () => Promise.resolve() };

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
 * is set (README, "Tracing"). Otherwise nothing is loaded and tracingIsOn() stays false. A URL that is
 * not one throws; other unrecognised values are logged and their defaults used.
 */
export async function startTracing({ services, defaultService, logger, explicitContext = false }: StartTracingOptions): Promise<Tracing> {
  // process.env, not a parameter: the exporters read their endpoint, headers and timeout there themselves.
  const env = process.env;
  const { settings, warnings } = readTracingSettings(env);
  for (const warning of warnings) logger.warn(`tracing: ${warning}`);
  if (settings === null) return OFF;
  if (services.length > 1 && env.OTEL_SERVICE_NAME) {
    logger.warn('tracing: OTEL_SERVICE_NAME is ignored when one process runs several services; each reports its own name');
  }
  // Loaded only now: with tracing off, no SDK module is ever imported.
  const { startSdk }: { startSdk: typeof StartSdk } = await import('./sdk.js');
  const sdk = await startSdk(settings, { services, defaultService: defaultService ?? services[0] ?? 'platform', explicitContext, logger });
  setTracingOn(true);
  logger.info({ protocol: settings.protocol, sampler: settings.sampler, ratio: settings.ratio }, 'tracing on');
  let stopping: Promise<void> | undefined;
  return {
    on: true,
    shutdown: () =>
      (stopping ??= (async () => {
        setTracingOn(false);
        // A collector gone at shutdown must not fail the stop: the spans are lost either way.
        await sdk.shutdown().catch((err: unknown) => logger.warn({ err }, 'tracing: the last spans could not be exported'));
      })()),
  };
}
