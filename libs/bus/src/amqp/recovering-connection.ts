import { connect, type ChannelModel, type RecoveringChannelModel } from 'amqplib';
import type { Logger } from '@acs/logger';
import { errorText } from '../headers.js';

export interface RecoveringConnectionOptions {
  url: string;
  connectionName: string;
  reconnectDelayMs: number;
  maxReconnectDelayMs: number;
  logger: Logger;
  /** Runs on every (re)connect before the connection counts as up; throwing schedules another attempt. */
  setup(model: ChannelModel): Promise<void>;
}

/**
 * amqplib's opt-in recovery (2.x) owns the reconnect loop: exponential backoff with jitter, never
 * giving up, cancelled by close(). It resolves at once (`waitForConnect: false`), so a service can
 * start, and report not-ready, while the broker is still down. Resolves to null only if amqplib
 * could not even start trying (logged).
 */
export function openRecoveringConnection(options: RecoveringConnectionOptions): Promise<RecoveringChannelModel | null> {
  const { logger } = options;
  return connect(options.url, {
    // Names the connection in the broker's UI and CLI (and lets tests force-close exactly it).
    clientProperties: { connection_name: options.connectionName },
    recovery: {
      initialDelay: options.reconnectDelayMs,
      maxDelay: options.maxReconnectDelayMs,
      maxRetries: Infinity,
      waitForConnect: false,
      setup: options.setup,
    },
  }).then(
    (connection) => {
      // The first attempt runs on a later tick, so these listeners see it. An 'error' without a
      // listener would throw inside amqplib.
      connection.on('error', (err: Error) => logger.warn({ err: errorText(err) }, 'bus connection error'));
      connection.on('disconnect', (err: Error) => logger.warn({ err: errorText(err) }, 'bus disconnected from the broker'));
      connection.on('connect-failed', (err: Error) => logger.error({ err: errorText(err) }, 'bus could not connect to the broker'));
      connection.on('reconnect-scheduled', (info: { attempt: number; delay: number }) =>
        logger.info({ attempt: info.attempt, delayMs: info.delay }, 'bus reconnect scheduled'),
      );
      return connection;
    },
    (err: unknown) => {
      logger.error({ err: errorText(err) }, 'bus connection setup failed');
      return null;
    },
  );
}
