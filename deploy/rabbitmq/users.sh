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
#                               their permissions and leaves every other user alone. It also declares
#                               the events exchange, each consumer's queue and its bindings (below);
#                               rabbitmqctl makes the users only: there, import the document too
#                               (`sh users.sh --definitions | rabbitmqctl import_definitions --format json`).
#
#   RABBITMQ_BILLING_PASSWORD, RABBITMQ_DEVICE_PASSWORD, RABBITMQ_IDENTITY_PASSWORD, RABBITMQ_KEYS_PASSWORD,
#   RABBITMQ_WEBHOOKS_PASSWORD  one password each
#   BUS_EXCHANGE                the events exchange (default acs.events)
#   SUBSCRIPTION_EVENTS_QUEUE   identity's queue (default identity.subscription-events)
#   BILLING_USER_EVENTS_QUEUE, DEVICE_USER_EVENTS_QUEUE, KEYS_USER_EVENTS_QUEUE   the user-events queues
#                               (each service's USER_EVENTS_QUEUE; default <service>.user-events)
#   WEBHOOKS_QUEUE              the webhooks service's queue (its WEBHOOKS_QUEUE; default webhooks.events)
#   RABBITMQ_USER_PREFIX        user names' prefix (default acs-): acs-billing, acs-device, acs-identity, acs-keys,
#                               acs-webhooks
#   RABBITMQ_VHOST              default /
#   RABBITMQ_ADMIN_USER, RABBITMQ_ADMIN_PASSWORD   --definitions only, optional: an administrator as
#                               well (a broker that boots from the document has no other user)
#
# A consumer declares the exchange (to bind to it; configure, and read to bind) and its own queues (the
# queue, .dlq, .retry.*; configure), binds them (write on the queue), consumes (read), and moves failed
# messages to its retry and dead-letter queues through an exchange of its own, <queue>.x (libs/bus), which
# its retry queues dead-letter back through: all inside its own names, <queue>(\..*)? . No user writes
# the default exchange (amq.default), where RabbitMQ cannot limit routing keys and a write reaches any
# queue; no user reads, binds or writes another's queue. On the events exchange a topic permission per
# publisher limits the routing keys it may publish to those of its own events:
#   billing   declares the exchange and publishes subscription.*, plan.* and audit.recorded (its outboxes);
#             consumes its user-events queue (user.deleted)
#   keys      declares the exchange and publishes api_key.*, quota.* and audit.recorded (its outboxes);
#             consumes its user-events queue
#   device    consumes its user-events queue only; publishes nothing (no write on the exchange)
#   webhooks  consumes its queue only (api_key.*, quota.threshold, subscription.*, which it turns into
#             users' webhook deliveries); publishes nothing (no write on the exchange)
#   identity  consumes its queue (subscription.*, plan.*, audit.recorded) and publishes user.* (its outbox's
#             user.deleted)
# so none of them can forge another's event (identity a subscription.*, keys a subscription.* or plan.*,
# billing an api_key.*). audit.recorded is both billing's and keys': each may publish it.
set -eu
: "${RABBITMQ_BILLING_PASSWORD:?set RABBITMQ_BILLING_PASSWORD}"
: "${RABBITMQ_IDENTITY_PASSWORD:?set RABBITMQ_IDENTITY_PASSWORD}"
: "${RABBITMQ_KEYS_PASSWORD:?set RABBITMQ_KEYS_PASSWORD}"
: "${RABBITMQ_DEVICE_PASSWORD:?set RABBITMQ_DEVICE_PASSWORD}"
: "${RABBITMQ_WEBHOOKS_PASSWORD:?set RABBITMQ_WEBHOOKS_PASSWORD}"
exchange="${BUS_EXCHANGE:-acs.events}"
queue="${SUBSCRIPTION_EVENTS_QUEUE:-identity.subscription-events}"
billing_queue="${BILLING_USER_EVENTS_QUEUE:-billing.user-events}"
device_queue="${DEVICE_USER_EVENTS_QUEUE:-device.user-events}"
keys_queue="${KEYS_USER_EVENTS_QUEUE:-keys.user-events}"
webhooks_queue="${WEBHOOKS_QUEUE:-webhooks.events}"
users="${RABBITMQ_USER_PREFIX:-acs-}"
vhost="${RABBITMQ_VHOST:-/}"

# A name as a regular expression that matches it alone.
literal() { printf '%s' "$1" | sed 's/[].[^$*+?(){}|\\]/\\&/g'; }
ex="$(literal "$exchange")"
# A queue and the ones it makes (.dlq, .retry.<ms>).
own() { printf '%s(\\..*)?' "$(literal "$1")"; }
q="$(own "$queue")"
bq="$(own "$billing_queue")"
dq="$(own "$device_queue")"
kq="$(own "$keys_queue")"
wq="$(own "$webhooks_queue")"

# The permissions, once for both ways: name password configure write read.
each_user() { # command
  #   name                  password                          configure           write               read
  "$1" "${users}billing"  "$RABBITMQ_BILLING_PASSWORD"  "^(${ex}|${bq})\$"  "^(${ex}|${bq})\$"  "^(${ex}|${bq})\$"
  "$1" "${users}device"   "$RABBITMQ_DEVICE_PASSWORD"   "^(${ex}|${dq})\$"  "^(${dq})\$"        "^(${ex}|${dq})\$"
  "$1" "${users}identity" "$RABBITMQ_IDENTITY_PASSWORD" "^(${ex}|${q})\$"   "^(${ex}|${q})\$"   "^(${ex}|${q})\$"
  "$1" "${users}keys"     "$RABBITMQ_KEYS_PASSWORD"     "^(${ex}|${kq})\$"  "^(${ex}|${kq})\$"  "^(${ex}|${kq})\$"
  "$1" "${users}webhooks" "$RABBITMQ_WEBHOOKS_PASSWORD" "^(${ex}|${wq})\$"  "^(${wq})\$"        "^(${ex}|${wq})\$"
}

# Topic permissions on the events exchange (the routing keys a user may publish there, the binding keys it
# may bind with): name write read. Each publisher's write is its own events' keys (the event families it
# alone publishes, and audit.recorded); device publishes nothing and has none (its write permission
# already keeps it off the exchange).
each_topic_permission() { # command
  #   name                  write                                                       read
  "$1" "${users}billing"  '^(subscription\.[a-z_]+|plan\.[a-z_]+|audit\.recorded)$'  '.*'
  "$1" "${users}identity" '^user\.'                                                   '.*'
  "$1" "${users}keys"     '^(api_key\.[a-z_]+|quota\.[a-z_]+|audit\.recorded)$'    '.*'
}

# Each consumer's queue and the patterns its service binds it with on the events exchange (identity's
# and webhooks': libs/contracts/src/queue-bindings.ts; the user-events queues: libs/bus consumeUserDeleted;
# test/deploy/broker-users.test.ts holds them to the code). In the definitions, so an event published before a consumer's first start (a new deployment, a
# first start while the broker was away) waits in its queue instead of matching none. Only the queue and
# these bindings: its <queue>.x exchange, .dlq and .retry.* queues stay the service's own (libs/bus).
each_queue() { # command
  "$1" "$billing_queue"
  "$1" "$device_queue"
  "$1" "$queue"
  "$1" "$keys_queue"
  "$1" "$webhooks_queue"
}
each_binding() { # command
  #   queue              pattern
  "$1" "$billing_queue"  'user.*'
  "$1" "$device_queue"   'user.*'
  "$1" "$queue"          'subscription.*'
  "$1" "$queue"          'plan.*'
  "$1" "$queue"          'audit.recorded'
  "$1" "$keys_queue"     'user.*'
  "$1" "$webhooks_queue" 'api_key.*'
  "$1" "$webhooks_queue" 'quota.threshold'
  "$1" "$webhooks_queue" 'subscription.*'
}

with_rabbitmqctl() {
  # add_user fails on an existing user: then only the password is set again.
  rabbitmqctl add_user "$1" "$2" >/dev/null 2>&1 || rabbitmqctl change_password "$1" "$2" >/dev/null
  rabbitmqctl set_permissions -p "$vhost" "$1" "$3" "$4" "$5" >/dev/null
}
topic_with_rabbitmqctl() {
  rabbitmqctl set_topic_permissions -p "$vhost" "$1" "$exchange" "$2" "$3" >/dev/null
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

topic_permission_json() {
  printf '%s    {"user": %s, "vhost": %s, "exchange": %s, "write": %s, "read": %s}' \
    "$sep" "$(json "$1")" "$(json "$vhost")" "$(json "$exchange")" "$(json "$2")" "$(json "$3")"
  sep=',
'
}

# As libs/bus declares them (a topic exchange and queues, durable, no arguments), so a service's own
# assertExchange / assertQueue finds them equal.
exchange_json() {
  printf '    {"name": %s, "vhost": %s, "type": "topic", "durable": true, "auto_delete": false, "internal": false, "arguments": {}}' \
    "$(json "$exchange")" "$(json "$vhost")"
}
queue_json() {
  printf '%s    {"name": %s, "vhost": %s, "durable": true, "auto_delete": false, "arguments": {}}' "$sep" "$(json "$1")" "$(json "$vhost")"
  sep=',
'
}
binding_json() {
  printf '%s    {"source": %s, "vhost": %s, "destination": %s, "destination_type": "queue", "routing_key": %s, "arguments": {}}' \
    "$sep" "$(json "$exchange")" "$(json "$vhost")" "$(json "$1")" "$(json "$2")"
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
  printf '\n  ],\n  "topic_permissions": [\n'
  sep=''
  each_topic_permission topic_permission_json
  printf '\n  ],\n  "exchanges": [\n'
  exchange_json
  printf '\n  ],\n  "queues": [\n'
  sep=''
  each_queue queue_json
  printf '\n  ],\n  "bindings": [\n'
  sep=''
  each_binding binding_json
  printf '\n  ]\n}\n'
}

case "${1:-}" in
  --definitions) definitions ;;
  "")
    each_user with_rabbitmqctl
    each_topic_permission topic_with_rabbitmqctl
    echo "RabbitMQ users ${users}billing, ${users}device, ${users}identity, ${users}keys and ${users}webhooks are set on vhost ${vhost}"
    ;;
  *) echo "usage: sh users.sh [--definitions]" >&2; exit 2 ;;
esac
