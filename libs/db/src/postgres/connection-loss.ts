import { markDependencyUnavailable } from '@acs/errors';

/*
 * pg reports a lost or never-established connection with plain Errors that carry no SQLSTATE
 * (refused connections carry ECONNREFUSED and are recognised by @acs/errors already). Marking them
 * lets the services answer 503 instead of 500 while PostgreSQL is away.
 */
const CONNECTION_LOST = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

export function markIfConnectionLost<E>(err: E): E {
  if (err instanceof Error && !('code' in err && err.code) && CONNECTION_LOST.test(err.message)) markDependencyUnavailable(err);
  return err;
}
