import { scriptOf } from '@acs/cache';

/*
 * The per-request Redis work of a rate-limited key (docs/performance.md, "The hot path"): the gateway has
 * already decided, from the key record it parsed last time (and memoized), that the request passes every
 * check; this script only confirms that the record is still that one (its version and length) and moves the
 * limiter's counters, atomically, in the same round trip that reads the record. No JSON is decoded in Redis.
 * Redis runs one script at a time, so every gateway replica sees and updates the same counters: exact
 * across replicas. If the record changed, nothing is counted and the current record comes back; the gateway
 * decides on it and counts in a second round trip (once per change and replica).
 *
 * Algorithm: GCRA (generic cell rate algorithm), one theoretical arrival time (TAT) per window. Each request
 * moves the TAT by seconds/limit; a request is admitted when the new TAT is at most one window ahead of now.
 * Equivalent to a sliding window with no burst at window edges: never more than `limit` requests in any
 * `seconds`-long interval. Times are microseconds since 2025-01-01 (a double is exact to ~0.004 µs there).
 * A refused request changes nothing; an admitted one moves every window.
 *
 * State: one string per key, `ratelimit:{<key>}` (same hash slot as `apikey:{<key>}`), holding for each
 * window "<seconds>=<TAT>:<limit>", comma-separated. It is keyed by the window's length, not by the limit's
 * text, so editing a limit keeps what the window already used: the backlog (TAT - now) is rescaled from the
 * stored limit to the new one, which leaves exactly (new limit - used) requests (3/3600s used up, then
 * 4/3600s: one more).
 *
 * KEYS[1] apikey:{<key>}, KEYS[2] ratelimit:{<key>}.
 * ARGV[1] "<version>|" of the record the gateway decided on, ARGV[2] its entry's length (0: a record the owning
 * service answered on a cache miss, decided on without an entry to compare), then for each window its limit and
 * its seconds.
 * Returns { entry } when the record changed (nothing counted), else
 * { entry, 1 admitted | 2 refused, window (1-based) the headers report, remaining, reset s, retry-after s }.
 */
const LIMIT_LUA = `
local raw = redis.call('GET', KEYS[1])
if ARGV[2] ~= '0' and (not raw or string.len(raw) ~= tonumber(ARGV[2]) or string.sub(raw, 1, string.len(ARGV[1])) ~= ARGV[1]) then return { raw } end
local clock = redis.call('TIME')
local now = (tonumber(clock[1]) - 1735689600) * 1000000 + tonumber(clock[2])
local stored = {}
local state = redis.call('GET', KEYS[2])
if state then
  for s, t, l in string.gmatch(state, '(%d+)=([^:,]+):(%d+)') do stored[s] = { tonumber(t), tonumber(l) } end
end
local refused, retry = 0, 0
local tight, tightRemaining, tightReset = 1, -1, 0
local longest = 0
local out = {}
for i = 1, (#ARGV - 2) / 2 do
  local limit = tonumber(ARGV[2 * i + 1])
  local seconds = ARGV[2 * i + 2]
  local period = tonumber(seconds) * 1000000
  local interval = period / limit
  local tat = now
  local previous = stored[seconds]
  if previous and previous[1] > now then
    tat = now + (previous[1] - now) * previous[2] / limit
  end
  local newTat = tat + interval
  local wait = newTat - period - now
  -- 1 µs of slack for floating-point error, so exactly 'limit' requests fit in a window
  if wait > 1 then
    if wait > retry then retry = wait; refused = i end
  else
    local remaining = math.floor((period - (newTat - now)) / interval + 0.000001)
    local reset = math.ceil((newTat - now) / 1000000)
    if tightRemaining < 0 or remaining < tightRemaining or (remaining == tightRemaining and reset > tightReset) then
      tight, tightRemaining, tightReset = i, remaining, reset
    end
  end
  if newTat - now > longest then longest = newTat - now end
  out[i] = seconds .. '=' .. string.format('%.17g', newTat) .. ':' .. limit
end
if refused > 0 then
  local wait = math.ceil(retry / 1000000)
  return { raw, 2, refused, 0, wait, wait }
end
redis.call('SET', KEYS[2], table.concat(out, ','), 'PX', math.ceil(longest / 1000) + 1000)
return { raw, 1, tight, tightRemaining, tightReset, 0 }
`;

/**
 * Gives back one request in every window of `ratelimit:{<key>}` (KEYS[1]): for a request the script counted
 * that the gateway then refused (a token that failed verification, a record that changed under it).
 * Returns an empty array.
 */
const REFUND_LUA = `
local state = redis.call('GET', KEYS[1])
if not state then return {} end
local out = {}
for s, t, l in string.gmatch(state, '(%d+)=([^:,]+):(%d+)') do
  out[#out + 1] = s .. '=' .. string.format('%.17g', tonumber(t) - tonumber(s) * 1000000 / tonumber(l)) .. ':' .. l
end
redis.call('SET', KEYS[1], table.concat(out, ','), 'KEEPTTL')
return {}
`;

export const LIMIT = scriptOf(LIMIT_LUA);
export const REFUND = scriptOf(REFUND_LUA);
