import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

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
}

/** JSON lines on stdout; one child per request adds `requestId` to every line. */
export function createLogger({ name, level = 'info', destination }: LoggerOptions): Logger {
  const options = {
    name,
    level,
    base: { service: name },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}
