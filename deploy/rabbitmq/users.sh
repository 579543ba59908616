#!/bin/sh
# The platform's RabbitMQ users, one per service that uses the broker, each with configure/write/read
# permissions on its own exchange and queues only (docs/security.md). Two ways, the same permissions:
#
#   sh users.sh                 creates (or updates) them with rabbitmqctl, where it reaches the broker
#                               (a broker of your own: `docker compose exec rabbitmq sh ...`). Idempotent.
#   sh users.sh --definitions   prints them as a definitions document (JSON): what docker-compose.yml's
#                               rabbitmq loads at boot (load_definitions, deploy/rabbitmq/definitions.conf)
#                               and k8s/broker-users.yaml posts to a managed broker's HTTP API
#                               (POST /api/definitions). Importing it adds or updates these users and
#                               their permissions and leaves every other user alone.
#
#   RABBITMQ_BILLING_PASSWORD, RABBITMQ_IDENTITY_PASSWORD, RABBITMQ_KEYS_PASSWORD   one password each
#   BUS_EXCHANGE                the events exchange (default acs.events)
#   SUBSCRIPTION_EVENTS_QUEUE   identity's queue (default identity.subscription-events)
#   RABBITMQ_USER_PREFIX        user names' prefix (default acs-): acs-billing, acs-identity, acs-keys
#   RABBITMQ_VHOST              default /
#   RABBITMQ_ADMIN_USER, RABBITMQ_ADMIN_PASSWORD   --definitions only, optional: an administrator as
#                               well (a broker that boots from the document has no other user)
#
#   billing   declares the exchange and publishes to it (subscription.*, plan.*, audit.recorded); reads
#             nothing, declares no queue
#   keys      the same as billing: declares the exchange and publishes its outboxes' events to it
#             (api_key.*, quota.threshold, audit.recorded); reads nothing, declares no queue
#   identity  declares the exchange (to bind to it) and its queues (the queue, .dlq, .retry.*), binds,
#             consumes, and moves failed messages to its retry and dead-letter queues through the
#             default exchange; it cannot publish to the events exchange (no forged subscription event)
set -eu
: "${RABBITMQ_BILLING_PASSWORD:?set RABBITMQ_BILLING_PASSWORD}"
: "${RABBITMQ_IDENTITY_PASSWORD:?set RABBITMQ_IDENTITY_PASSWORD}"
: "${RABBITMQ_KEYS_PASSWORD:?set RABBITMQ_KEYS_PASSWORD}"
exchange="${BUS_EXCHANGE:-acs.events}"
queue="${SUBSCRIPTION_EVENTS_QUEUE:-identity.subscription-events}"
users="${RABBITMQ_USER_PREFIX:-acs-}"
vhost="${RABBITMQ_VHOST:-/}"

# A name as a regular expression that matches it alone.
literal() { printf '%s' "$1" | sed 's/[].[^$*+?(){}|\\]/\\&/g'; }
ex="$(literal "$exchange")"
q="$(literal "$queue")"

# The permissions, once for both ways: name password configure write read.
each_user() { # command
  #   name                  password                          configure                 write                                 read
  "$1" "${users}billing"  "$RABBITMQ_BILLING_PASSWORD"  "^${ex}\$"                 "^${ex}\$"                             "^\$"
  "$1" "${users}identity" "$RABBITMQ_IDENTITY_PASSWORD" "^(${ex}|${q}(\\..*)?)\$"  "^(${q}(\\..*)?|amq\\.default)\$"      "^(${ex}|${q}(\\..*)?)\$"
  "$1" "${users}keys"     "$RABBITMQ_KEYS_PASSWORD"     "^${ex}\$"                 "^${ex}\$"                             "^\$"
}

with_rabbitmqctl() {
  # add_user fails on an existing user: then only the password is set again.
  rabbitmqctl add_user "$1" "$2" >/dev/null 2>&1 || rabbitmqctl change_password "$1" "$2" >/dev/null
  rabbitmqctl set_permissions -p "$vhost" "$1" "$3" "$4" "$5" >/dev/null
}

# A JSON string: backslashes and quotes escaped (names and passwords hold no control characters).
json() { printf '"%s"' "$(printf '%s' "$1" | sed 's/[\\"]/\\&/g')"; }

# The broker hashes a "password" it is given (its default algorithm, as for add_user).
user_json() { printf '%s    {"name": %s, "password": %s, "tags": %s}' "$sep" "$(json "$1")" "$(json "$2")" "$(json "${3-}")"; sep=',
'; }
service_user_json() { user_json "$1" "$2" ''; }
permission_json() {
  printf '%s    {"user": %s, "vhost": %s, "configure": %s, "write": %s, "read": %s}' \
    "$sep" "$(json "$1")" "$(json "$vhost")" "$(json "$3")" "$(json "$4")" "$(json "$5")"
  sep=',
'
}

definitions() {
  admin="${RABBITMQ_ADMIN_USER:-}"
  printf '{\n  "vhosts": [{"name": %s}],\n  "users": [\n' "$(json "$vhost")"
  sep=''
  if [ -n "$admin" ]; then user_json "$admin" "${RABBITMQ_ADMIN_PASSWORD:?set RABBITMQ_ADMIN_PASSWORD}" administrator; fi
  each_user service_user_json
  printf '\n  ],\n  "permissions": [\n'
  sep=''
  if [ -n "$admin" ]; then permission_json "$admin" - '.*' '.*' '.*'; fi
  each_user permission_json
  printf '\n  ]\n}\n'
}

case "${1:-}" in
  --definitions) definitions ;;
  "")
    each_user with_rabbitmqctl
    echo "RabbitMQ users ${users}billing, ${users}identity and ${users}keys are set on vhost ${vhost}"
    ;;
  *) echo "usage: sh users.sh [--definitions]" >&2; exit 2 ;;
esac
