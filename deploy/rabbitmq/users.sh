#!/bin/sh
# Creates (or updates) the platform's RabbitMQ users, one per service that uses the broker, each with
# configure/write/read permissions on its own exchange and queues only (docs/security.md). Run it where
# rabbitmqctl reaches the broker (compose: docker compose exec rabbitmq sh /users.sh; k8s: the broker's
# operator). Idempotent.
#
#   RABBITMQ_BILLING_PASSWORD, RABBITMQ_IDENTITY_PASSWORD   one password each
#   BUS_EXCHANGE                the events exchange (default acs.events)
#   SUBSCRIPTION_EVENTS_QUEUE   identity's queue (default identity.subscription-events)
#   RABBITMQ_USER_PREFIX        user names' prefix (default acs-): acs-billing, acs-identity
#   RABBITMQ_VHOST              default /
#
#   billing   declares the exchange and publishes to it; reads nothing, declares no queue
#   identity  declares the exchange (to bind to it) and its queues (the queue, .dlq, .retry.*), binds,
#             consumes, and moves failed messages to its retry and dead-letter queues through the
#             default exchange; it cannot publish to the events exchange (no forged subscription event)
set -eu
: "${RABBITMQ_BILLING_PASSWORD:?set RABBITMQ_BILLING_PASSWORD}"
: "${RABBITMQ_IDENTITY_PASSWORD:?set RABBITMQ_IDENTITY_PASSWORD}"
exchange="${BUS_EXCHANGE:-acs.events}"
queue="${SUBSCRIPTION_EVENTS_QUEUE:-identity.subscription-events}"
users="${RABBITMQ_USER_PREFIX:-acs-}"
vhost="${RABBITMQ_VHOST:-/}"

# A name as a regular expression that matches it alone.
literal() { printf '%s' "$1" | sed 's/[].[^$*+?(){}|\\]/\\&/g'; }
ex="$(literal "$exchange")"
q="$(literal "$queue")"

user() {
  # add_user fails on an existing user: then only the password is set again.
  rabbitmqctl add_user "$1" "$2" >/dev/null 2>&1 || rabbitmqctl change_password "$1" "$2" >/dev/null
  rabbitmqctl set_permissions -p "$vhost" "$1" "$3" "$4" "$5" >/dev/null
}

#     name                  password                          configure                 write                                 read
user "${users}billing"  "$RABBITMQ_BILLING_PASSWORD"  "^${ex}\$"                 "^${ex}\$"                             "^\$"
user "${users}identity" "$RABBITMQ_IDENTITY_PASSWORD" "^(${ex}|${q}(\\..*)?)\$"  "^(${q}(\\..*)?|amq\\.default)\$"      "^(${ex}|${q}(\\..*)?)\$"
echo "RabbitMQ users ${users}billing and ${users}identity are set on vhost ${vhost}"
