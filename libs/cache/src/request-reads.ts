import type { RequestReads, SlotCommands, SlotReplies } from './cache.js';
import type { MgetConnection } from './mget-connection.js';
import type { RespReply } from './resp-reader.js';

/*
 * RequestReads on one Redis node, over the gateway's lean connection (mget-connection.ts). One node has no
 * hash slots, so every group's reads join in one MGET (the cheapest command for Redis: one dispatch for all
 * the entries and the limiter's previous-window counters); each counter is one INCR in the same write.
 */

function split(groups: readonly SlotCommands[], replies: RespReply[], hasReads: boolean): SlotReplies[] {
  const values = hasReads ? (replies[0] as (string | null)[]) : [];
  let read = 0;
  let reply = hasReads ? 1 : 0;
  return groups.map((group) => {
    const out: SlotReplies = { values: values.slice(read, read + group.reads.length), counts: [] };
    read += group.reads.length;
    for (let i = 0; i < group.increments.length; i++) out.counts.push(replies[reply++] as number);
    return out;
  });
}

export function singleNodeRequestReads(connection: MgetConnection): RequestReads {
  // A group's INCRs encoded once per list of counters (the gateway reuses a list for a whole period).
  const encoded = new WeakMap<readonly string[], string>();
  function increments(counters: readonly string[]): string {
    let payload = encoded.get(counters);
    if (payload === undefined) {
      payload = counters.map((counter) => connection.keyCommand('INCR', [counter])).join('');
      encoded.set(counters, payload);
    }
    return payload;
  }
  return {
    exchange(groups) {
      const reads: string[] = [];
      let payload = '';
      let count = 0;
      for (const group of groups) for (const key of group.reads) reads.push(key);
      if (reads.length > 0) {
        payload = connection.mgetCommand(reads);
        count = 1;
      }
      for (const group of groups) {
        if (group.increments.length === 0) continue;
        payload += increments(group.increments);
        count += group.increments.length;
      }
      if (count === 0) return Promise.resolve(groups.map(() => ({ values: [], counts: [] })));
      const hasReads = reads.length > 0;
      return connection.batch(payload, count, (replies) => split(groups, replies, hasReads));
    },
    decrement(counters) {
      for (const counter of counters) connection.send(connection.keyCommand('DECR', [counter]));
    },
    expireAt(counter, atMs) {
      connection.send(connection.keyCommand('PEXPIREAT', [counter], [String(atMs)]));
    },
  };
}
