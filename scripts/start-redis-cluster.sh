#!/usr/bin/env bash
# Starts a Redis Cluster of 3 primaries and 3 replicas on this machine from the installed
# redis-server, for the cluster tests (test/cluster) and for trying the system on a cluster
# (REDIS_CLUSTER_NODES, docs/redis-cluster.md). Each node runs on its own port with its own
# folder; nothing is persisted (save "" and appendonly no): it holds test data only.
#
# Idempotent: a cluster that is up and healthy is left alone. A node that is down (a fault test
# killed it) is started again from its own nodes.conf and rejoins (a killed primary comes back
# as a replica of the node that took over). A cluster that is still not healthy after that, or
# a folder without a cluster, is stopped and created afresh.
#
# Healthy means: every node answers, every node says cluster_state:ok with all 16384 slots
# assigned and 6 known nodes, and the cluster has 3 primaries that each have a replica in sync.
#
# Usage: scripts/start-redis-cluster.sh [--stop | --help]
# Environment: REDIS_CLUSTER_PORTS ("7101 7102 7103 7104 7105 7106", primaries first),
# REDIS_CLUSTER_DIR (/tmp/acs-redis-cluster), REDIS_CLUSTER_NODE_TIMEOUT_MS (2000).
# Prints REDIS_CLUSTER_NODES=host:port,... for the tests (REDIS_TEST_CLUSTER_NODES) at the end.
set -euo pipefail

PORTS=(${REDIS_CLUSTER_PORTS:-7101 7102 7103 7104 7105 7106})
DIR="${REDIS_CLUSTER_DIR:-/tmp/acs-redis-cluster}"
NODE_TIMEOUT_MS="${REDIS_CLUSTER_NODE_TIMEOUT_MS:-2000}"
HOST=127.0.0.1
say() { echo "start-redis-cluster: $*"; }

case "${1:-}" in
  --help | -h)
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  --stop | '') ;;
  *)
    echo "start-redis-cluster: unknown argument $1 (try --help)" >&2
    exit 2
    ;;
esac

if [ "${#PORTS[@]}" -ne 6 ]; then
  echo "start-redis-cluster: REDIS_CLUSTER_PORTS must name 6 ports (3 primaries, 3 replicas)" >&2
  exit 2
fi
command -v redis-server > /dev/null || { echo "start-redis-cluster: redis-server is not installed" >&2; exit 1; }

cli() { redis-cli -h "$HOST" -p "$1" "${@:2}" 2> /dev/null; }
answers() { [ "$(cli "$1" PING)" = PONG ]; }
node_dir() { echo "$DIR/$1"; }

# Only a node of this script's cluster may be stopped: one whose working folder is ours.
ours() { [ "$(cli "$1" CONFIG GET dir | sed -n 2p)" = "$(node_dir "$1")" ]; }

node_healthy() {
  local info
  info="$(cli "$1" CLUSTER INFO | tr -d '\r')" || return 1
  grep -qx 'cluster_state:ok' <<< "$info" && grep -qx 'cluster_slots_assigned:16384' <<< "$info" &&
    grep -qx 'cluster_slots_ok:16384' <<< "$info" && grep -qx "cluster_known_nodes:${#PORTS[@]}" <<< "$info"
}

# A replica must have its copy (a failover needs one); a primary passes.
replica_in_sync() {
  local info
  info="$(cli "$1" INFO replication | tr -d '\r')" || return 1
  grep -qx 'role:master' <<< "$info" || grep -qx 'master_link_status:up' <<< "$info"
}

cluster_healthy() {
  local port nodes primaries replicas
  for port in "${PORTS[@]}"; do node_healthy "$port" && replica_in_sync "$port" || return 1; done
  nodes="$(cli "${PORTS[0]}" CLUSTER NODES)" || return 1
  # No node flagged failing, in handshake or without address.
  ! grep -Eq ' [^ ]*(fail|handshake|noaddr)[^ ]* ' <<< "$nodes" || return 1
  primaries="$(awk '$3 ~ /master/ && NF > 8 { print $1 }' <<< "$nodes")"
  [ "$(wc -l <<< "$primaries")" -eq 3 ] || return 1
  replicas="$(awk '$3 ~ /slave/ { print $4 }' <<< "$nodes")"
  for primary in $primaries; do grep -qx "$primary" <<< "$replicas" || return 1; done
}

wait_healthy() { # seconds
  for _ in $(seq 1 "$(($1 * 4))"); do
    cluster_healthy && return 0
    sleep 0.25
  done
  return 1
}

start_node() {
  local port="$1" dir
  dir="$(node_dir "$port")"
  mkdir -p "$dir"
  redis-server --port "$port" --bind "$HOST" --dir "$dir" --daemonize yes \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" \
    --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout "$NODE_TIMEOUT_MS" \
    --save "" --appendonly no
  for _ in $(seq 1 40); do
    answers "$port" && return 0
    sleep 0.25
  done
  echo "start-redis-cluster: the node on port $port did not start (see $dir/redis.log)" >&2
  return 1
}

stop_all() {
  local port
  for port in "${PORTS[@]}"; do
    if answers "$port"; then
      if ! ours "$port"; then
        echo "start-redis-cluster: port $port is used by a Redis that is not this script's; refusing to touch it" >&2
        exit 1
      fi
      say "stopping the node on port $port"
      cli "$port" SHUTDOWN NOSAVE > /dev/null || true
    fi
  done
  for port in "${PORTS[@]}"; do
    for _ in $(seq 1 40); do answers "$port" || break; sleep 0.25; done
  done
}

if [ "${1:-}" = --stop ]; then
  stop_all
  say "stopped"
  exit 0
fi

nodes_list() { local IFS=,; echo "${PORTS[*]/#/$HOST:}"; }

if cluster_healthy; then
  say "the cluster on ports ${PORTS[*]} is up and healthy; nothing to do"
  echo "REDIS_CLUSTER_NODES=$(nodes_list)"
  exit 0
fi

# Nodes that are down but have their cluster identity on disk rejoin when started again.
restarted=0
for port in "${PORTS[@]}"; do
  if ! answers "$port" && [ -s "$(node_dir "$port")/nodes.conf" ]; then
    say "starting the stopped node on port $port again (it rejoins from its nodes.conf)"
    start_node "$port"
    restarted=1
  fi
done
if [ "$restarted" -eq 1 ] || [ -s "$(node_dir "${PORTS[0]}")/nodes.conf" ]; then
  say "waiting up to 20 s for the cluster to be healthy"
  if wait_healthy 20; then
    say "the cluster is healthy"
    echo "REDIS_CLUSTER_NODES=$(nodes_list)"
    exit 0
  fi
  say "the cluster is not healthy; creating it afresh"
fi

stop_all
say "creating 6 empty nodes under $DIR"
rm -rf "$DIR"
for port in "${PORTS[@]}"; do start_node "$port"; done
addresses=()
for port in "${PORTS[@]}"; do addresses+=("$HOST:$port"); done
say "joining them: 3 primaries (${PORTS[*]:0:3}), one replica each"
redis-cli --cluster create "${addresses[@]}" --cluster-replicas 1 --cluster-yes > "$DIR/create.log" 2>&1 || {
  cat "$DIR/create.log" >&2
  echo "start-redis-cluster: redis-cli --cluster create failed" >&2
  exit 1
}
say "waiting up to 30 s for every node to report cluster_state:ok"
if ! wait_healthy 30; then
  for port in "${PORTS[@]}"; do echo "--- $port" >&2; cli "$port" CLUSTER INFO | head -3 >&2 || true; done
  echo "start-redis-cluster: the cluster did not become healthy" >&2
  exit 1
fi
say "the cluster is healthy"
echo "REDIS_CLUSTER_NODES=$(nodes_list)"
