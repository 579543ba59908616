import { scriptOf } from '@acs/cache';

/*
 * The gateway's per-request Redis exchange when a request may be rate limited (ARCHITECTURE.md, decision 9):
 * one EVALSHA, in the same write as the other requests' reads, that returns the key record and the user's
 * authorization record exactly as MGET did AND applies the key's limits atomically. Redis runs one script
 * at a time, so every gateway replica sees and updates the same counters: exact across replicas, no extra
 * round trip.
 *
 * A request counts only if the gateway will let it through its own checks, so an invalid caller never
 * consumes anyone's budget: the script repeats them on the data it reads (secret hash, or a replaced one in
 * its grace period; not revoked, not expired; a scope that grants the route, for user routes an enabled user
 * of the route's effective role). The only check it
 * cannot repeat is the JWT signature of a token the replica has not verified before; the gateway gives such a
 * request back (REFUND_LUA) when the token turns out bad. system:full-access keys are never limited.
 *
 * Algorithm: GCRA (generic cell rate algorithm), one theoretical arrival time (TAT) per window in a hash
 * ratelimit:<key>, field "<limit>:<seconds>". Each request moves the TAT by seconds/limit; a request is
 * admitted when the new TAT is at most one window ahead of now. Equivalent to a sliding window with no burst
 * at window edges: never more than `limit` requests in any `seconds`-long interval. Times are microseconds
 * since 2025-01-01 (a double is exact to ~0.004 µs there). A refused request changes nothing; an admitted one
 * moves every window.
 *
 * The script's secret comparison only decides whether to count; the gateway's own constant-time check still
 * decides the answer (and a Lua string comparison is a pointer comparison of interned strings).
 *
 * KEYS[1] apikey:<key>, KEYS[2] ratelimit:<key>, KEYS[3] authz:<user id> (user routes only).
 * ARGV[1] SHA-256 of the presented secret (base64url), ARGV[2] the scopes that grant the route, each between
 * spaces, ARGV[3] the route's minimum effective role ('' when no user is needed), ARGV[4] the default windows
 * for the key's environment, "<limit>:<seconds>,..." ('' for none).
 * Returns { key entry, authz entry } when the request was not counted (not valid, not limited), or
 * { key entry, authz entry, 1 admitted | 2 refused, tightest window (1-based), remaining, reset s, retry-after s }.
 */
const READ_AND_LIMIT_LUA = `
local keyRaw = redis.call('GET', KEYS[1])
local authzRaw = false
if KEYS[3] then authzRaw = redis.call('GET', KEYS[3]) end
local function decode(raw)
  if not raw then return nil end
  local json = string.match(raw, '^%d+|(.*)$')
  if not json then return nil end
  local ok, value = pcall(cjson.decode, json)
  if ok and type(value) == 'table' then return value end
  return nil
end
local rec = decode(keyRaw)
if not rec or rec.revoked ~= false or type(rec.scopes) ~= 'table' then return { keyRaw, authzRaw } end
local clock = redis.call('TIME')
local nowSeconds = tonumber(clock[1])
local nowMs = nowSeconds * 1000 + math.floor(tonumber(clock[2]) / 1000)
-- An expired key, or a replaced secret past its grace period, is refused by the gateway: never counted.
if type(rec.expiresAtMs) == 'number' and nowMs >= rec.expiresAtMs then return { keyRaw, authzRaw } end
if rec.secretHash ~= ARGV[1] and not (rec.previousSecretHash == ARGV[1] and type(rec.previousSecretEndsAtMs) == 'number' and nowMs < rec.previousSecretEndsAtMs) then
  return { keyRaw, authzRaw }
end
local granted = false
for _, scope in ipairs(rec.scopes) do
  if scope == 'system:full-access' then return { keyRaw, authzRaw } end
  if type(scope) == 'string' and string.find(ARGV[2], ' ' .. scope .. ' ', 1, true) then granted = true end
end
if not granted then return { keyRaw, authzRaw } end
if ARGV[3] ~= '' then
  local authz = decode(authzRaw)
  if not authz or authz.disabled ~= false or type(authz.accountRole) ~= 'number' then return { keyRaw, authzRaw } end
  local role = authz.accountRole
  if role < 1 and type(authz.trialEndsAt) == 'number' and authz.trialEndsAt > nowSeconds then role = 1 end
  if role < 1 and type(authz.subscriptionEndsAt) == 'number' and authz.subscriptionEndsAt > nowSeconds then role = 1 end
  if role < tonumber(ARGV[3]) then return { keyRaw, authzRaw } end
end
local limits, periods = {}, {}
if type(rec.rateLimits) == 'table' then
  for i, w in ipairs(rec.rateLimits) do limits[i] = tonumber(w.limit); periods[i] = tonumber(w.windowSeconds) end
else
  for l, p in string.gmatch(ARGV[4], '(%d+):(%d+)') do limits[#limits + 1] = tonumber(l); periods[#periods + 1] = tonumber(p) end
end
if #limits == 0 then return { keyRaw, authzRaw } end
local now = (nowSeconds - 1735689600) * 1000000 + tonumber(clock[2])
local fields, tats = {}, {}
local refused, retry = 0, 0
local tight, tightRemaining, tightReset = 1, -1, 0
for i = 1, #limits do
  local period = periods[i] * 1000000
  local interval = period / limits[i]
  fields[i] = limits[i] .. ':' .. periods[i]
  local tat = tonumber(redis.call('HGET', KEYS[2], fields[i])) or now
  if tat < now then tat = now end
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
  tats[i] = newTat
end
if refused > 0 then
  local seconds = math.ceil(retry / 1000000)
  return { keyRaw, authzRaw, 2, refused, 0, seconds, seconds }
end
local longest = 0
for i = 1, #limits do
  redis.call('HSET', KEYS[2], fields[i], string.format('%.17g', tats[i]))
  if tats[i] - now > longest then longest = tats[i] - now end
end
redis.call('PEXPIRE', KEYS[2], math.ceil(longest / 1000) + 1000)
return { keyRaw, authzRaw, 1, tight, tightRemaining, tightReset, 0 }
`;

/**
 * Gives back one request in every window (KEYS[1] ratelimit:<key>, ARGV "<limit>:<seconds>,..."): for a request
 * the script counted that the gateway then refused for its token. Returns an empty array.
 */
const REFUND_LUA = `
for l, p in string.gmatch(ARGV[1], '(%d+):(%d+)') do
  local field = l .. ':' .. p
  local tat = tonumber(redis.call('HGET', KEYS[1], field))
  if tat then redis.call('HSET', KEYS[1], field, string.format('%.17g', tat - tonumber(p) * 1000000 / tonumber(l))) end
end
return {}
`;

export const READ_AND_LIMIT = scriptOf(READ_AND_LIMIT_LUA);
export const REFUND = scriptOf(REFUND_LUA);

export { rateLimitCacheKey } from '@acs/contracts';
