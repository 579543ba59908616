#!/bin/sh
# Prints the Redis ACL users of the platform, one ACL-file line per process (docs/security.md):
#   user <name> on #<sha256 of the password> resetkeys resetchannels <commands> <key patterns>
# Each line is also an ACL SETUSER command without its first word. Every process gets the commands it
# sends and the keys it owns; the `default` user is left to the operator (turn it off: `user default off`).
#
#   REDIS_PREFIX           the platform's key prefix (REDIS_PREFIX of gateway, keys, identity; default acs:)
#   REDIS_GATEWAY_PASSWORD, REDIS_KEYS_PASSWORD, REDIS_IDENTITY_PASSWORD   one password each
#   REDIS_USER_PREFIX      prefix of the user names (default acs-): acs-gateway, acs-keys, acs-identity
#
# What each may touch:
#   gateway   reads apikey:* and authz:* (never writes them); reads and writes ratelimit:* (its limiter's
#             counters) and quota:* (the users' plan quota counters, issue 29)
#   keys      reads and writes apikey:* (the key records it owns)
#   identity  reads and writes authz:* (the authorization records it owns) and its throttles:
#             login-fail:*, login-ok:*, login-known:*, register:*
set -eu
prefix="${REDIS_PREFIX-acs:}"
users="${REDIS_USER_PREFIX:-acs-}"

hash_of() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
need() { eval "value=\${$1:-}"; [ -n "$value" ] || { echo "acl-users.sh: set $1" >&2; exit 1; }; printf '%s' "$value"; }

# Connection set-up (AUTH, SELECT, HELLO, CLIENT, PING, INFO for ioredis's ready check) and scripts
# (EVAL/EVALSHA/SCRIPT LOAD: every write of these processes is a script); never FLUSH, KEYS, CONFIG, ACL.
base="resetkeys resetchannels -@all +@connection +info +select +eval +evalsha +script|load"

# The gateway's one round trip per request reads apikey:*/authz:* and the counters (MGET) and moves its counters
# (INCR, DECR, PEXPIREAT on ratelimit:* and quota:*); the root rules name all four for reading and the selector in
# parentheses allows writes on the counters alone: a SET on apikey:*, direct or in a script, is NOPERM.
echo "user ${users}gateway on #$(hash_of "$(need REDIS_GATEWAY_PASSWORD)") $base +@read -@dangerous +time ~${prefix}apikey:* ~${prefix}authz:* ~${prefix}ratelimit:* ~${prefix}quota:* (+@write -@dangerous ~${prefix}ratelimit:* ~${prefix}quota:*)"
echo "user ${users}keys on #$(hash_of "$(need REDIS_KEYS_PASSWORD)") $base +@read +@write -@dangerous ~${prefix}apikey:*"
echo "user ${users}identity on #$(hash_of "$(need REDIS_IDENTITY_PASSWORD)") $base +@read +@write -@dangerous ~${prefix}authz:* ~${prefix}login-fail:* ~${prefix}login-ok:* ~${prefix}login-known:* ~${prefix}register:*"
