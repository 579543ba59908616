#!/bin/sh
# Prints the Redis ACL users of the platform, one ACL-file line per process (docs/security.md):
#   user <name> on #<sha256 of the password> resetkeys resetchannels <commands> <key patterns>
# Each line is also an ACL SETUSER command without its first word. Every process gets the commands it
# sends and the keys it owns. Used as they are by docker-compose.yml (its redis starts from an ACL file of
# these lines, with REDIS_DEFAULT_PASSWORD) and k8s/broker-users.yaml (ACL SETUSER on a Redis of yours).
#
#   REDIS_PREFIX           the platform's key prefix (REDIS_PREFIX of gateway, keys, identity; default acs:)
#   REDIS_GATEWAY_PASSWORD, REDIS_KEYS_PASSWORD, REDIS_IDENTITY_PASSWORD   one password each
#   REDIS_USER_PREFIX      prefix of the user names (default acs-): acs-gateway, acs-keys, acs-identity
#   REDIS_DEFAULT_PASSWORD optional: a first line for the `default` user (the operator's, every command and
#                          key) with this password. An ACL file must name it, or Redis lets anyone in as
#                          `default` without a password; on a running server leave it out (or `user default off`).
#
# What each may touch:
#   gateway   reads apikey:* and authz:* (never writes them); reads and moves its counters: ratelimit:* (its
#             limiter's) and quota:* (the users' plan quotas: INCR/DECR and their expiry only); reads and writes
#             idempotency:* (the Idempotency-Key leases and kept answers, issue 31: SET NX PX GET; scripts: GET, SET, DEL)
#   keys      reads and writes apikey:* (the key records it owns); reads quota:* and authz:* (GET /api/Usage)
#   identity  reads and writes authz:* (the authorization records it owns) and its throttles:
#             login-fail:*, login-ok:*, login-known:*, register:*
set -eu
prefix="${REDIS_PREFIX-acs:}"
users="${REDIS_USER_PREFIX:-acs-}"

hash_of() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
need() { eval "value=\${$1:-}"; [ -n "$value" ] || { echo "acl-users.sh: set $1" >&2; exit 1; }; printf '%s' "$value"; }

# Connection set-up (AUTH, SELECT, HELLO, CLIENT, PING; INFO below) and scripts
# (EVAL/EVALSHA/SCRIPT LOAD: every write of these processes is a script); never FLUSH, KEYS, CONFIG, ACL.
base="resetkeys resetchannels -@all +@connection +select +eval +evalsha +script|load"
# INFO is in @dangerous: allowed after each user's -@dangerous (ioredis's ready check asks it at every connect).
safe="-@dangerous +info"

if [ -n "${REDIS_DEFAULT_PASSWORD:-}" ]; then
  echo "user default on #$(hash_of "$REDIS_DEFAULT_PASSWORD") resetkeys resetchannels ~* &* +@all"
fi
# The gateway's one round trip per request reads apikey:*/authz:* and the counters (MGET) and moves its counters
# (INCR, DECR, PEXPIREAT on ratelimit:* and quota:*); the root rules name all four for reading, and the selectors
# in parentheses allow writes on ratelimit:* and counting on quota:* alone: a SET on apikey:* or quota:*, direct
# or in a script, is NOPERM. The Idempotency-Key records (idempotency:*) are read and written like the limiter's state.
echo "user ${users}gateway on #$(hash_of "$(need REDIS_GATEWAY_PASSWORD)") $base +@read $safe +time ~${prefix}apikey:* ~${prefix}authz:* ~${prefix}ratelimit:* ~${prefix}quota:* ~${prefix}idempotency:* (+@write -@dangerous ~${prefix}ratelimit:* ~${prefix}idempotency:*) (+incr +incrby +decr +decrby +expire +pexpire +pexpireat ~${prefix}quota:*)"
# %R~: read-only key patterns (Redis 7): keys shows users their quota and plan and never changes them.
echo "user ${users}keys on #$(hash_of "$(need REDIS_KEYS_PASSWORD)") $base +@read +@write $safe ~${prefix}apikey:* %R~${prefix}quota:* %R~${prefix}authz:*"
echo "user ${users}identity on #$(hash_of "$(need REDIS_IDENTITY_PASSWORD)") $base +@read +@write $safe ~${prefix}authz:* ~${prefix}login-fail:* ~${prefix}login-ok:* ~${prefix}login-known:* ~${prefix}register:*"
