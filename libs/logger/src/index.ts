import { pino, type Logger, type DestinationStream } from 'pino';
import { prettyDestination } from './pretty.js';

export type { Logger };
export { prettyDestination, prettyLine } from './pretty.js';

/** JSON lines for collectors, or readable lines for a person at a terminal (LOG_FORMAT). */
export type LogFormat = 'json' | 'pretty';

/**
 * Paths whose values never reach a log line. Header names are lower-case as Node gives them.
 * Listed explicitly because pino's wildcards match one level only.
 */
const REDACTED_PATHS = [
  'password',
  'secret',
  'secretHash',
  'token',
  '*.password',
  '*.secret',
  '*.secretHash',
  '*.token',
  '*.apiSecret',
  'req.headers.authorization',
  'req.headers["x-api-secret"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-secret"]',
  'headers.cookie',
  'body.password',
  'body.secret',
  'body.token',
];

export interface LoggerOptions {
  name: string;
  level?: string;
  /** Tests pass a stream to read the lines back. */
  destination?: DestinationStream;
  /** Without a destination: JSON lines on stdout (default), or `pretty` ones. */
  format?: LogFormat;
}

/** JSON lines on stdout; one child per request adds `requestId` to every line. */
export function createLogger({ name, level = 'info', destination, format = 'json' }: LoggerOptions): Logger {
  const options = {
    name,
    level,
    base: { service: name },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  const stream = destination ?? (format === 'pretty' ? prettyDestination() : undefined);
  return stream ? pino(options, stream) : pino(options);
}

/**
 * The logger of one part of a process that hosts several (npm start): the parent's level,
 * destination and redaction, but `service` set once to `service` (a child would add a second
 * `service` key to every JSON line).
 */
export function serviceLogger(parent: Logger, service: string): Logger {
  const destination = (parent as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym];
  return createLogger({ name: service, level: parent.level, ...(destination ? { destination } : {}) });
}
