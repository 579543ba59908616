import type { CacheScript, RequestRead, RequestReads } from './cache.js';
import type { MgetConnection } from './mget-connection.js';
import { RespError, type RespReply } from './resp-reader.js';

/*
 * RequestReads on one Redis node, over the gateway's lean connection (mget-connection.ts). One node has no
 * hash slots, so the plain read joins both entries in one MGET (the cheapest command for Redis: one
 * dispatch for both); with a script, the script and the MGET of the user's entry go out in one write.
 */

const onlyKey = (replies: (string | null)[]): RequestRead => ({ key: replies[0] ?? null, user: null, script: null });
const keyAndUser = (replies: (string | null)[]): RequestRead => ({ key: replies[0] ?? null, user: replies[1] ?? null, script: null });
const scriptOnly = (reply: RespReply[]): RequestRead => ({ key: (reply[0] as string | null) ?? null, user: null, script: reply });
const scriptAndUser = ([reply, user]: [RespReply[], RespReply[]]): RequestRead => ({
  key: (reply[0] as string | null) ?? null,
  user: (user[0] as string | null) ?? null,
  script: reply,
});
const isNoScript = (err: unknown): boolean => err instanceof RespError && err.message.startsWith('NOSCRIPT');

export function singleNodeRequestReads(connection: MgetConnection): RequestReads {
  function send(verb: 'EVALSHA' | 'EVAL', script: CacheScript, keys: readonly string[], args: readonly string[], userEntry: string | null) {
    const body = verb === 'EVAL' ? script.source : script.sha;
    if (userEntry === null) return connection.evalArray(verb, body, keys, args).then(scriptOnly);
    return connection.pair(connection.evalCommand(verb, body, keys, args), connection.mgetCommand([userEntry])).then(scriptAndUser);
  }
  return {
    read(keyEntry, userEntry) {
      return userEntry === null ? connection.mget([keyEntry]).then(onlyKey) : connection.mget([keyEntry, userEntry]).then(keyAndUser);
    },
    readWithScript(script, keyEntries, args, userEntry) {
      // Redis forgets scripts when it restarts (or on SCRIPT FLUSH): EVAL then sends the source once, which caches it again.
      return send('EVALSHA', script, keyEntries, args, userEntry).catch((err: unknown) => {
        if (isNoScript(err)) return send('EVAL', script, keyEntries, args, userEntry);
        throw err;
      });
    },
  };
}
