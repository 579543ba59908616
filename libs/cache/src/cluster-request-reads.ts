import type { Cluster } from 'ioredis';
import type { CacheScript, RequestRead, RequestReads } from './cache.js';
import type { RespReply } from './resp-reader.js';

/*
 * RequestReads on a Redis Cluster (docs/redis-cluster.md). The key's entries (`apikey:{k}`, and for a
 * limited key `ratelimit:{k}` in the script) are one slot, the user's entry (`authz:{u}`) another, so they
 * travel as separate commands: issued in the same event-loop turn, ioredis' auto-pipelining sends the
 * commands for one primary in one write, so a request costs one round trip to each primary it needs
 * (one or two), never a second one to the same primary. Reads go to primaries only (the client's
 * scaleReads), so a change acknowledged before the request is seen by it.
 */

const keyOnly = (key: string | null): RequestRead => ({ key, user: null, script: null });
const keyAndUser = ([key, user]: [string | null, string | null]): RequestRead => ({ key, user, script: null });
const scriptOnly = (reply: RespReply[]): RequestRead => ({ key: (reply[0] as string | null) ?? null, user: null, script: reply });
const scriptAndUser = ([reply, user]: [RespReply[], string | null]): RequestRead => ({
  key: (reply[0] as string | null) ?? null,
  user,
  script: reply,
});
const isNoScript = (err: unknown): boolean => err instanceof Error && err.message.startsWith('NOSCRIPT');

export function clusterRequestReads(cluster: Cluster): RequestReads {
  // A node forgets scripts when it restarts (a failed primary that rejoins, then is promoted again): EVAL then
  // sends the source once, which caches it on that node again.
  function runScript(script: CacheScript, keys: readonly string[], args: readonly string[]): Promise<RespReply[]> {
    return (cluster.evalsha(script.sha, keys.length, ...keys, ...args) as Promise<RespReply[]>).catch((err: unknown) => {
      if (isNoScript(err)) return cluster.eval(script.source, keys.length, ...keys, ...args) as Promise<RespReply[]>;
      throw err;
    });
  }
  return {
    read(keyEntry, userEntry) {
      if (userEntry === null) return cluster.get(keyEntry).then(keyOnly);
      return Promise.all([cluster.get(keyEntry), cluster.get(userEntry)]).then(keyAndUser);
    },
    readWithScript(script, keyEntries, args, userEntry) {
      if (userEntry === null) return runScript(script, keyEntries, args).then(scriptOnly);
      return Promise.all([runScript(script, keyEntries, args), cluster.get(userEntry)]).then(scriptAndUser);
    },
  };
}
