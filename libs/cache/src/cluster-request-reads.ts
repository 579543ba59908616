import type { Cluster } from 'ioredis';
import type { RequestReads, SlotCommands, SlotReplies } from './cache.js';

/*
 * RequestReads on a Redis Cluster (docs/redis-cluster.md). Each group is one hash slot (the key's record and
 * limiter counters share `{k}`, the user's record and quota counters share `{u}`), so its MGET and INCRs are
 * single-slot commands; issued in the same event-loop turn, ioredis' auto-pipelining sends the commands for
 * one primary in one write, so a request costs one round trip to each primary it needs (one or two), never
 * a second one to the same primary. Reads go to primaries only (the client's scaleReads), so a change
 * acknowledged before the request is seen by it.
 */

const ignore = (): void => {};

function slotExchange(cluster: Cluster, group: SlotCommands): Promise<SlotReplies> {
  const values = group.reads.length === 0 ? Promise.resolve([]) : cluster.mget(...group.reads);
  const counts = group.increments.map((counter) => cluster.incr(counter));
  return Promise.all([values, Promise.all(counts)]).then(([read, counted]) => ({ values: read, counts: counted }));
}

export function clusterRequestReads(cluster: Cluster): RequestReads {
  return {
    exchange(groups) {
      return Promise.all(groups.map((group) => slotExchange(cluster, group)));
    },
    decrement(counters) {
      for (const counter of counters) cluster.decr(counter).catch(ignore);
    },
    expireAt(counter, atMs) {
      cluster.pexpireat(counter, atMs).catch(ignore);
    },
  };
}
