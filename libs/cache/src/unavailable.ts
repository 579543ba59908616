import { markDependencyUnavailable } from '@acs/errors';

/*
 * ioredis reports "Redis is not there" with plain Errors (no code): a closed connection, the retry
 * limit while reconnecting, a command timeout. Marked, they make the services answer 503 (try
 * again) rather than 500; a Redis reply error (a bug of ours, e.g. in a script) stays as it is.
 * On a Redis Cluster, a slot without a reachable primary (a failover under way) shows as the
 * cluster client's own errors or as CLUSTERDOWN / TRYAGAIN (or a redirection still unsettled): the same "try again".
 */
const CONNECTION_TROUBLE =
  /^(Connection is closed|Reached the max retries per request limit|Command timed out|Stream isn't writeable|Too many Cluster redirections|Cluster isn't ready|Cluster is ended|Failed to refresh slots cache|None of startup nodes is available)/;
const CLUSTER_TRY_AGAIN = /^(CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING|MOVED|ASK)\b/;

export function rethrowUnavailable(err: unknown): never {
  if (err instanceof Error && (err.name !== 'ReplyError' ? CONNECTION_TROUBLE : CLUSTER_TRY_AGAIN).test(err.message))
    markDependencyUnavailable(err);
  throw err;
}
