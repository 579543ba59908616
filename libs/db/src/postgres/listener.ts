import pg from 'pg';
import type { Logger } from '@acs/logger';
import { redactUrl } from './connection-url.js';

export interface ListenOptions {
  /** The PostgreSQL server and database whose NOTIFYs are wanted. */
  url: string;
  channel: string;
  logger: Logger;
  onNotification(payload: string): void;
  /**
   * After every (re)connection, once LISTEN is in place: what was sent while no connection
   * listened is lost, so this is where the caller reads the state it would have heard about.
   */
  onListening(): Promise<void> | void;
  /** The connection was lost: notifications may be missed until onListening runs again. */
  onLost(): void;
}

export interface Listener {
  close(): Promise<void>;
}

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;
const CONNECT_TIMEOUT_MS = 10_000;

/** A SQL identifier in double quotes (LISTEN takes no parameters). */
const quoted = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * LISTEN on one connection of its own (a pool would hand the session to others), reconnecting
 * with backoff for as long as it is open. The first connection is awaited, so a caller that
 * starts with it knows it is listening; later failures are logged and retried.
 */
export async function listenForNotifications(options: ListenOptions): Promise<Listener> {
  const { url, channel, logger } = options;
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let delay = RETRY_MIN_MS;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    next.on('error', (err) => lost(next, err));
    next.on('end', () => lost(next, new Error('connection ended')));
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) options.onNotification(message.payload);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${quoted(channel)}`);
      if (closed) throw new Error('closed while connecting');
      client = next;
      await options.onListening();
      delay = RETRY_MIN_MS;
    } catch (err) {
      client = undefined;
      await next.end().catch(() => {});
      throw err;
    }
  };

  const reconnectLater = (): void => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch((err: unknown) => {
        logger.warn({ err: (err as Error).message, channel, database: redactUrl(url) }, 'LISTEN connection failed; retrying');
        delay = Math.min(delay * 2, RETRY_MAX_MS);
        reconnectLater();
      });
    }, delay);
  };

  function lost(which: pg.Client, err: Error): void {
    if (closed || client !== which) return;
    client = undefined;
    which.end().catch(() => {});
    logger.warn({ err: err.message, channel }, 'LISTEN connection lost; reconnecting');
    options.onLost();
    reconnectLater();
  }

  await connect();
  return {
    close: async () => {
      closed = true;
      if (retry) clearTimeout(retry);
      const last = client;
      client = undefined;
      await last?.end().catch(() => {});
    },
  };
}
