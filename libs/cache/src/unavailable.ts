import { markDependencyUnavailable } from '@acs/errors';

/*
 * ioredis reports "Redis is not there" with plain Errors (no code): a closed connection, the retry
 * limit while reconnecting, a command timeout. Marked, they make the services answer 503 (try
 * again) rather than 500; a Redis reply error (a bug of ours, e.g. in a script) stays as it is.
 */
const CONNECTION_TROUBLE = /^(Connection is closed|Reached the max retries per request limit|Command timed out|Stream isn't writeable)/;

export function rethrowUnavailable(err: unknown): never {
  if (err instanceof Error && err.name !== 'ReplyError' && CONNECTION_TROUBLE.test(err.message)) markDependencyUnavailable(err);
  throw err;
}
