import { createHash } from 'node:crypto';
import type { CacheScript } from './cache.js';
/*
 * Lua scripts, registered with ioredis `scripts` so they run as EVALSHA (EVAL on first use per connection),
 * take part in auto-pipelining, and get the client's keyPrefix applied to KEYS like any other command.
 */

/**
 * KEYS[1] entry, ARGV[1] version, ARGV[2] value, ARGV[3] ttl seconds. Returns 1 if written, 0 if refused.
 * The stored version is the digits before the first `|`; an entry without them counts as absent (same rule
 * as parseVersioned), so a malformed or foreign value is repaired by the next versioned write.
 */
export const SET_IF_NEWER_LUA = `
local current = redis.call('GET', KEYS[1])
if current then
  local stored = string.match(current, '^(%d+)|')
  if stored and tonumber(stored) >= tonumber(ARGV[1]) then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[2], 'EX', ARGV[3])
return 1
`;

/**
 * KEYS[1] counter, ARGV[1] window seconds. Returns { count, pttl in ms }.
 * The expiry is set only when the counter has none (just created, or written without one), so later
 * increments never stretch the window: a fixed window, not a sliding one.
 */
export const INCR_WITH_TTL_LUA = `
local count = redis.call('INCR', KEYS[1])
local pttl = redis.call('PTTL', KEYS[1])
if pttl < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  pttl = tonumber(ARGV[1]) * 1000
end
return { count, pttl }
`;

/** A script with its SHA-1, for Cache.evalScript (EVALSHA first, EVAL when Redis does not know it). */
export function scriptOf(source: string): CacheScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}
