#!/usr/bin/env bash
# Starts a second PostgreSQL 15 cluster on this machine as a hot standby (streaming replica) of
# the first, for the catalog's read-replica tests and benchmarks (CATALOG_READ_DATABASE_URL).
# Idempotent: a standby already running and keeping up is left alone; a stopped one is started
# again. A standby that cannot catch up (it was down while the primary wrote and recycled the WAL
# it needs: no replication slot keeps WAL for it, so a forgotten standby never fills the
# primary's disk) is copied from the primary again: it holds nothing but test data.
#
# Needs root (CI runs as root; developers use sudo): the standby runs as the postgres OS user,
# and the primary must allow replication connections from 127.0.0.1. If pg_hba.conf of the
# primary has no replication line, one `host replication all 127.0.0.1/32 trust` line is added
# (trust, as the machine's other lines) and the configuration reloaded; wal_level replica and
# max_wal_senders are PostgreSQL 15's defaults and are checked, not changed.
#
# Environment: PRIMARY_PORT (5432), REPLICA_PORT (5433), PG_VERSION (15),
# REPLICA_DIR (/var/lib/postgresql/$PG_VERSION/catalog-replica).
set -euo pipefail

PG_VERSION="${PG_VERSION:-15}"
PRIMARY_PORT="${PRIMARY_PORT:-5432}"
REPLICA_PORT="${REPLICA_PORT:-5433}"
REPLICA_DIR="${REPLICA_DIR:-/var/lib/postgresql/$PG_VERSION/catalog-replica}"
BIN="/usr/lib/postgresql/$PG_VERSION/bin"
HBA="/etc/postgresql/$PG_VERSION/main/pg_hba.conf"
LOG="$REPLICA_DIR.log"

as_postgres() { runuser -u postgres -- "$@"; }
primary_sql() { psql -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -AtXq -c "$1"; }
replica_sql() { psql -h 127.0.0.1 -p "$REPLICA_PORT" -U postgres -AtXq -c "$1"; }

if [ "$(id -u)" -ne 0 ]; then
  echo "start-catalog-replica: run as root (sudo): the standby runs as the postgres user" >&2
  exit 1
fi

[ "$(primary_sql 'SHOW wal_level')" != minimal ] || { echo "start-catalog-replica: the primary has wal_level minimal" >&2; exit 1; }
[ "$(primary_sql 'SHOW max_wal_senders')" -gt 0 ] || { echo "start-catalog-replica: the primary has max_wal_senders 0" >&2; exit 1; }

if ! grep -Eq '^[[:space:]]*host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32' "$HBA"; then
  echo "start-catalog-replica: allowing replication from 127.0.0.1 in $HBA"
  printf '\n# Added by scripts/start-catalog-replica.sh: the catalog read-replica tests.\nhost replication all 127.0.0.1/32 trust\n' >> "$HBA"
  primary_sql 'SELECT pg_reload_conf()' > /dev/null
fi

# A fresh copy of the primary, configured as a standby on REPLICA_PORT (any old one is removed).
copy_primary() {
  echo "start-catalog-replica: copying the primary into $REPLICA_DIR (pg_basebackup -R)"
  if [ -f "$REPLICA_DIR/postmaster.pid" ]; then as_postgres "$BIN/pg_ctl" -D "$REPLICA_DIR" -m fast -w stop > /dev/null || true; fi
  rm -rf "$REPLICA_DIR"
  install -d -o postgres -g postgres -m 700 "$REPLICA_DIR"
  as_postgres "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$REPLICA_DIR" -R -X stream --checkpoint=fast
  # Debian keeps the configuration under /etc, so the copy has none: the standby gets its own.
  as_postgres tee "$REPLICA_DIR/postgresql.conf" > /dev/null <<CONF
port = $REPLICA_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '/tmp'
hot_standby = on
hot_standby_feedback = on
max_connections = 100
shared_buffers = 64MB
CONF
  as_postgres tee "$REPLICA_DIR/pg_hba.conf" > /dev/null <<'HBA'
local all all trust
host all all 127.0.0.1/32 trust
HBA
}

in_recovery() { replica_sql 'SELECT pg_is_in_recovery()' 2>/dev/null | grep -qx t; }

start_standby() {
  echo "start-catalog-replica: starting the standby on port $REPLICA_PORT (log $LOG)"
  touch "$LOG" && chown postgres:postgres "$LOG"
  as_postgres "$BIN/pg_ctl" -D "$REPLICA_DIR" -l "$LOG" -w -t 60 start > /dev/null
  for _ in $(seq 1 60); do
    in_recovery && return 0
    sleep 1
  done
  echo "start-catalog-replica: the standby did not come up; see $LOG" >&2
  exit 1
}

# Whether the standby replays everything the primary has written so far. Waits while WAL streams
# (up to 60 s); gives up after 10 s without a streaming WAL receiver, which is how a standby looks
# whose next WAL segment the primary has already removed.
caught_up() {
  local target
  target="$(primary_sql 'SELECT pg_current_wal_lsn()')"
  for second in $(seq 1 60); do
    [ "$(replica_sql "SELECT pg_last_wal_replay_lsn() >= '$target'::pg_lsn" 2>/dev/null)" = t ] && return 0
    if [ "$second" -ge 10 ] && [ "$(replica_sql "SELECT count(*) FROM pg_stat_wal_receiver WHERE status = 'streaming'" 2>/dev/null)" != 1 ]; then
      return 1
    fi
    sleep 1
  done
  return 1
}

if in_recovery; then
  if caught_up; then
    echo "start-catalog-replica: a standby already answers on port $REPLICA_PORT and keeps up"
    exit 0
  fi
  echo "start-catalog-replica: the standby on port $REPLICA_PORT cannot catch up (see $LOG)"
  copy_primary
else
  [ -f "$REPLICA_DIR/standby.signal" ] || copy_primary
fi
start_standby
if ! caught_up; then
  echo "start-catalog-replica: the standby cannot catch up; copying the primary again"
  copy_primary
  start_standby
  caught_up || { echo "start-catalog-replica: the standby does not keep up with the primary; see $LOG" >&2; exit 1; }
fi
echo "start-catalog-replica: standby ready: postgres://postgres@127.0.0.1:$REPLICA_PORT/"
