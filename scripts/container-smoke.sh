#!/usr/bin/env bash
# The deployment files, built and run for real with podman (docs/deploy.md, "Running the
# deployment files with podman"; CI runs this from .ci/run, as root):
#   1. the engine: podman, runc, debootstrap, podman-compose and /etc/containers/containers.conf,
#      where missing (scripts/container-smoke/setup-engine.sh);
#   2. a local node:20-bookworm-slim (no public image registry is reachable here), rebuilt only
#      when its inputs change (scripts/container-smoke/build-base-image.sh);
#   3. our image from ./Dockerfile, from the tracked files as a clean clone has them; it must run
#      as uid 1000; the application layers' size is printed;
#   4. docker-compose.yml with Debian's podman-compose and deploy/podman/compose.override.yml
#      (the shared PostgreSQL and RabbitMQ on this host, with RabbitMQ users of the run made from
#      deploy/rabbitmq/users.sh --definitions, and a redis-server of the run's own started from the
#      ACL file deploy/redis/acl-users.sh prints: each process as its own user): services started in depends_on
#      order as their health checks pass, the user journey through the compose gateway (with a webhook
#      endpoint whose signed delivery reaches a receiver of the journey's on the host), and each
#      container stopped with SIGTERM, timed, once keys' outboxes are emptied onto RabbitMQ (its own user);
#   5. the Deployments, ConfigMaps and a Secret of `kubectl kustomize k8s/` with `podman kube
#      play`, after the Job redis-acl-users' pod (it must exit 0): commands, users, environment,
#      ports and probes checked against the manifests, the
#      same journey through the gateway pod, each container stopped with SIGTERM, timed.
# Everything it starts is removed on exit (containers, pods, networks, secret, its redis-server, and
# its databases, RabbitMQ users, queues and exchange on the shared servers).
#
#   bash scripts/container-smoke.sh              the whole run
#   bash scripts/container-smoke.sh --self-test   shows the run fails on a broken Dockerfile line,
#                                                 a wrong env name and a wrong probe path (each
#                                                 made in a copy; the tree is not touched)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
case "${1:-}" in
  --help | -h) usage; exit 0 ;;
  --self-test) MODE=self-test ;;
  "") MODE=run ;;
  *) usage >&2; exit 2 ;;
esac

BASE_IMAGE="${ACS_SMOKE_BASE_IMAGE:-localhost/acs-node:20-bookworm-slim}"
# The name k8s/kustomization.yaml gives the image (acs, tag latest); compose takes it from ACS_IMAGE.
IMAGE=localhost/acs:latest
RUN_ID="acs_smoke_$(date +%s)_$$"
PROJECT="${RUN_ID//_/}"
NETWORK="${PROJECT}_default"
WORK="$(mktemp -d /tmp/acs-smoke.XXXXXX)"
# The tracked files as this tree has them (a clean clone), where podman-compose finds no developer's .env.
SRC="$WORK/context"
COMPOSE=(podman-compose -p "$PROJECT" -f "$SRC/docker-compose.yml" -f "$SRC/deploy/podman/compose.override.yml")
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
export AMQP_URL="${AMQP_URL:-amqp://guest:guest@127.0.0.1:5672}"

say() { echo "smoke: $*"; }
fail() { echo "smoke: FAILED: $*" >&2; exit 1; }
# A failed journey: the last log lines of the containers it went through, before everything is removed.
# Called as `journey | tee | sed || journey_failed ...`: under `set -e` and pipefail a bare failing
# pipeline ends the script at once, before any check of PIPESTATUS after it.
journey_failed() { # label container...
  local label="$1" container
  shift
  for container in "$@"; do
    echo "smoke: $label: the last log lines of $container:" >&2
    podman logs --tail 25 "$container" 2>&1 | cut -c1-400 | sed 's/^/    /' >&2
  done
  fail "$label: the journey through the gateway"
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
T0="$(now)"

FORWARD_PID=""
PIN_PID=""
REDIS_PID=""
MQ_USERS=""
COMPOSE_CREATED=""
KUBE_STARTED=""
cleanup() {
  local status=$?
  set +e
  if [ -n "$COMPOSE_CREATED" ]; then compose down -v -t 20 >"$WORK/compose-down.log" 2>&1; fi
  if [ -n "$KUBE_STARTED" ]; then
    for pod in $(sed -n 's/-pod-0-.*/-pod-0/p' "$WORK/kube/containers" 2>/dev/null | sort -u); do
      podman pod rm -f -t 20 "$pod" >/dev/null 2>&1
    done
    podman secret rm acs-secrets >/dev/null 2>&1
  fi
  [ -n "$FORWARD_PID" ] && kill "$FORWARD_PID" 2>/dev/null
  [ -n "$PIN_PID" ] && kill "$PIN_PID" 2>/dev/null
  [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null
  for user in $MQ_USERS; do rabbitmqctl -q delete_user "$user" >/dev/null 2>&1; done
  [ -z "$MQ_USERS" ] || say "cleanup: deleted the RabbitMQ users$MQ_USERS"
  podman network rm -f "$NETWORK" >/dev/null 2>&1
  podman network rm -f "${PROJECT}_webhooks" >/dev/null 2>&1 # docker-compose.yml's second network
  node scripts/container-smoke/cleanup-servers.mjs "$RUN_ID" | sed -u 's/^/smoke: /'
  rm -rf "$WORK"
  if [ "$status" -eq 0 ]; then say "done in $(since "$T0") s"; else say "failed after $(since "$T0") s"; fi
  exit "$status"
}
trap cleanup EXIT

# The tracked files with their contents in this tree: what a clean clone builds.
make_context() { # dir
  mkdir -p "$1"
  git ls-files -z | tar --null -T - -c | tar -x -C "$1"
}

build_image() { # context tag
  local started
  started="$(now)"
  say "podman build $1 -> $2 (NODE_IMAGE=$BASE_IMAGE)"
  podman build --network host --build-arg NODE_IMAGE="$BASE_IMAGE" -t "$2" "$1" >"$WORK/build.log" 2>&1 || {
    tail -30 "$WORK/build.log" >&2
    fail "podman build"
  }
  say "image built in $(since "$started") s"
}

check_image() { # tag
  local user uid base_size size
  user="$(podman image inspect --format '{{.Config.User}}' "$1")"
  uid="$(podman run --rm --network none "$1" id -u)"
  [ "$uid" = 1000 ] || fail "the image runs as uid $uid (USER '$user'), not 1000"
  base_size="$(podman image inspect --format '{{.Size}}' "$BASE_IMAGE")"
  size="$(podman image inspect --format '{{.Size}}' "$1")"
  say "image runs as uid $uid (USER $user); application layers: $(((size - base_size) / 1000000)) MB above the base ($((size / 1000000)) MB in all; goal: at most 100 MB above)"
}

# SIGTERM, timed: each process must drain and exit 0 within 10 s. The figure is from the signal
# to the process's exit (the container's FinishedAt); podman's own teardown comes on top.
stop_timed() { # label container...
  local label="$1" started finished seconds took code slow=""
  shift
  for container in "$@"; do
    started="$(now)"
    # (podman's complaint that no systemd timer runs its health check goes to the log, not here)
    podman stop -t 20 "$container" >/dev/null 2>>"$WORK/podman-stop.log"
    took="$(since "$started")"
    finished="$(podman inspect --format '{{.State.FinishedAt.UnixNano}}' "$container")"
    seconds="$(awk -v a="$started" -v f="$finished" 'BEGIN { printf "%.1f", f / 1e9 - a }')"
    code="$(podman inspect --format '{{.State.ExitCode}}' "$container")"
    say "$label: $container exited $seconds s after SIGTERM, exit code $code (podman stop took $took s)"
    if [ "$code" != 0 ] || awk -v s="$seconds" 'BEGIN { exit !(s >= 10) }'; then
      slow+=" $container"
      podman logs --tail 8 "$container" 2>&1 | cut -c1-400 | sed "s/^/smoke:   $container: /"
    elif awk -v s="$seconds" 'BEGIN { exit !(s >= 2) }'; then
      # In time, but slow: the close stacks' warnings name the part that held it.
      podman logs "$container" 2>&1 | grep -E 'did not close within|still closing' | cut -c1-400 | sed "s/^/smoke:   $container: /" || true
    fi
  done
  [ -z "$slow" ] || fail "$label: did not exit 0 within 10 s of SIGTERM:$slow"
}

# keys publishes on RabbitMQ as its own user (deploy/rabbitmq/users.sh): once the journey's key events
# (created, revoked) and audit entries are in its outboxes, the relays must empty them; a permission the
# script forgot would leave them pending (keys_*outbox_pending_events on its /metrics) while every HTTP
# answer stays right.
outbox_drained() { # label container
  local seen=""
  for _ in $(seq 80); do
    if seen="$(podman exec "$2" node -e '
      fetch("http://127.0.0.1:8081/metrics").then((r) => r.text()).then((text) => {
        const lines = text.split("\n").filter((l) => /^keys_\w*outbox_pending_events(\{[^}]*\})? /.test(l));
        console.log(lines.join("; "));
        process.exit(lines.length > 0 && lines.every((l) => Number(l.split(" ").pop()) === 0) ? 0 : 1);
      }, () => process.exit(1))' 2>&1)"; then
      say "$1: keys' outboxes are published to RabbitMQ: $seen"
      return
    fi
    sleep 0.25
  done
  fail "$1: keys' outboxes were not emptied onto RabbitMQ within 20 s: $seen"
}

# Account deletion (issue 32): identity publishes user.deleted as its own RabbitMQ user (user.* only) and
# keys, billing and device consume it from their own queues as theirs, each logging its audit line for the
# deleted user. A permission users.sh forgot would leave the event in identity's outbox, or a consumer
# without its queue, while every HTTP answer stays right.
user_events_consumed() { # label journey-log keys-container billing-container device-container
  local label="$1" user pair audit container found
  user="$(sed -n 's/.*deleted the account (user \([0-9]*\)).*/\1/p' "$2")"
  [ -n "$user" ] || fail "$label: the journey deleted no account"
  for pair in "user.keys_revoked:$3" "user.subscriptions_canceled:$4" "user.devices_erased:$5"; do
    audit="${pair%%:*}" container="${pair#*:}" found=""
    for _ in $(seq 80); do
      if podman logs "$container" 2>&1 | grep -F "\"audit\":\"$audit\"" | grep -qE "\"userId\":$user[,}]"; then
        found=1
        break
      fi
      sleep 0.25
    done
    [ -n "$found" ] || fail "$label: $container logged no $audit for user $user within 20 s (user.deleted not published or not consumed)"
  done
  say "$label: user.deleted of user $user consumed by keys, billing and device (their audit lines)"
}

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

secret() { node -p 'require(process.argv[1])[process.argv[2]]' "$WORK/secrets.json" "$1"; }

# The per-process users, made as docker-compose.yml's servers make them (docs/security.md):
# - Redis: a redis-server of this run's own on a free port (the shared one's users are not ours to
#   change), started from the ACL file deploy/redis/acl-users.sh prints, `default` with REDIS_PASSWORD;
# - RabbitMQ: the definitions document of deploy/rabbitmq/users.sh --definitions imported into the shared
#   broker (without its vhost entry), under this run's user names; deleted on exit.
start_servers() {
  REDIS_PORT="$(free_port)"
  REDIS_PREFIX="$RUN_ID:" REDIS_DEFAULT_PASSWORD="$(secret REDIS_PASSWORD)" REDIS_GATEWAY_PASSWORD="$(secret REDIS_GATEWAY_PASSWORD)" \
    REDIS_KEYS_PASSWORD="$(secret REDIS_KEYS_PASSWORD)" REDIS_IDENTITY_PASSWORD="$(secret REDIS_IDENTITY_PASSWORD)" \
    sh deploy/redis/acl-users.sh >"$WORK/users.acl"
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --aclfile "$WORK/users.acl" --save '' --appendonly no \
    --logfile "$WORK/redis.log" &
  REDIS_PID=$!
  for _ in $(seq 50); do REDISCLI_AUTH="$(secret REDIS_PASSWORD)" redis-cli -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
  say "redis-server on 127.0.0.1:$REDIS_PORT with the ACL users of deploy/redis/acl-users.sh: $(sed -n 's/^user \([^ ]*\).*/\1/p' "$WORK/users.acl" | tr '\n' ' ')"
  # The queues are the run's own, as compose.override.yml and kube-manifest.mjs name them.
  RABBITMQ_USER_PREFIX="$RUN_ID-" BUS_EXCHANGE="$RUN_ID.events" SUBSCRIPTION_EVENTS_QUEUE="$RUN_ID.subscription-events" \
    KEYS_USER_EVENTS_QUEUE="$RUN_ID.keys-user-events" BILLING_USER_EVENTS_QUEUE="$RUN_ID.billing-user-events" \
    DEVICE_USER_EVENTS_QUEUE="$RUN_ID.device-user-events" WEBHOOKS_QUEUE="$RUN_ID.webhooks-events" \
    RABBITMQ_BILLING_PASSWORD="$(secret RABBITMQ_BILLING_PASSWORD)" RABBITMQ_IDENTITY_PASSWORD="$(secret RABBITMQ_IDENTITY_PASSWORD)" \
    RABBITMQ_KEYS_PASSWORD="$(secret RABBITMQ_KEYS_PASSWORD)" RABBITMQ_DEVICE_PASSWORD="$(secret RABBITMQ_DEVICE_PASSWORD)" \
    RABBITMQ_WEBHOOKS_PASSWORD="$(secret RABBITMQ_WEBHOOKS_PASSWORD)" \
    sh deploy/rabbitmq/users.sh --definitions | node -e 'const d = JSON.parse(require("fs").readFileSync(0, "utf8")); delete d.vhosts; process.stdout.write(JSON.stringify(d))' \
    >"$WORK/definitions.json"
  MQ_USERS=" $RUN_ID-billing $RUN_ID-device $RUN_ID-identity $RUN_ID-keys $RUN_ID-webhooks"
  rabbitmqctl -q import_definitions --format json <"$WORK/definitions.json" >/dev/null
  for _ in $(seq 50); do
    [ "$(rabbitmqctl -q list_users | grep -c "^$RUN_ID-")" = 5 ] && break
    sleep 0.2
  done
  say "RabbitMQ users$MQ_USERS imported from deploy/rabbitmq/users.sh --definitions"
}

# The compose network, made before podman-compose (which then uses it), and the forwarder from
# its gateway address to the shared servers on the host's loopback.
make_network() {
  podman network create --label "io.podman.compose.project=$PROJECT" "$NETWORK" >/dev/null
  HOST_IP="$(podman network inspect "$NETWORK" --format '{{range .Subnets}}{{.Gateway}}{{end}}')"
  start_forwarder
  say "network $NETWORK; the host is $HOST_IP there, forwarding 5432, 6379 (to $REDIS_PORT), 5672 to 127.0.0.1"
}

start_forwarder() {
  node scripts/container-smoke/forward.mjs "$HOST_IP" 5432 "6379:$REDIS_PORT" 5672 >>"$WORK/forward.log" 2>&1 &
  FORWARD_PID=$!
}

# The bridges of this run's networks (both exist once podman-compose has created the containers) keep
# their MAC address while containers come and go (pin-bridge-macs.sh says why); kube play reuses the
# default network, so this runs until the cleanup.
pin_bridge_macs() {
  local bridges
  mapfile -t bridges < <(podman network ls --filter "label=io.podman.compose.project=$PROJECT" --format '{{.NetworkInterface}}')
  [ "${#bridges[@]}" -gt 0 ] || fail "no network of project $PROJECT to watch"
  bash scripts/container-smoke/pin-bridge-macs.sh "${bridges[@]}" >>"$WORK/pin-bridge-macs.log" 2>&1 &
  PIN_PID=$!
  say "bridges ${bridges[*]} keep their MAC address while containers come and go"
}

# After compose: a container's connection can outlive the container at the forwarder (a container
# removed with its network sends no FIN), and a RabbitMQ consumer left on such a connection
# would take its round-robin share of the kube phase's events on the same queues (seen: keys' consumer
# of user.deleted, webhooks' of api_key.created). A new forwarder closes every one of them; then no
# connection of this run's users may be left on the broker.
drop_forwarded_connections() { # label
  local left
  left="$(run_connections user)"
  left="${left//"$RUN_ID"-/}"
  kill "$FORWARD_PID" 2>/dev/null || true
  wait "$FORWARD_PID" 2>/dev/null || true
  start_forwarder
  for _ in $(seq 40); do
    [ -z "$(run_connections user)" ] && {
      say "$1: a new forwarder; RabbitMQ connections of this run left behind by the containers: ${left:-none}; now none"
      return
    }
    sleep 0.25
  done
  fail "$1: RabbitMQ still has connections of this run's users after the containers and the forwarder are gone: $(run_connections user peer_port)"
}

# This run's users' RabbitMQ connections, the given columns of each, on one line (empty: none).
run_connections() { # column...
  rabbitmqctl -q list_connections "$@" 2>/dev/null | grep "^$RUN_ID-" | tr '\n' ' ' || true
}

# podman-compose with the variables docker-compose.yml and the override need (every command
# reads the files, and a required variable missing fails it).
compose() {
  (
    set -a
    # shellcheck disable=SC1091
    . "$WORK/compose.env"
    "${COMPOSE[@]}" "$@"
  )
}

run_compose() {
  local started gateway_port dashboard_port
  started="$(now)"
  gateway_port="$(free_port)"
  dashboard_port="$(free_port)"
  cat >>"$WORK/compose.env" <<EOF
export ACS_IMAGE='$IMAGE' ACS_SMOKE_BASE_IMAGE='$BASE_IMAGE' ACS_SMOKE_ID='$RUN_ID' ACS_SMOKE_HOST_IP='$HOST_IP'
export GATEWAY_PORT='$gateway_port' DASHBOARD_PORT='$dashboard_port'
EOF
  compose up --no-build --no-start >"$WORK/compose-up.log" 2>&1 || {
    tail -20 "$WORK/compose-up.log" >&2
    fail "podman-compose up --no-start"
  }
  COMPOSE_CREATED=1
  pin_bridge_macs
  local containers
  mapfile -t containers < <(podman ps -a --filter "label=io.podman.compose.project=$PROJECT" --format '{{.Names}}')
  say "compose: podman-compose created ${#containers[@]} containers"
  if podman inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "${containers[@]}" | grep -F '${'; then
    fail "compose: a variable was passed on unsubstituted (above); give it a value in deploy/podman/compose.override.yml"
  fi
  node scripts/container-smoke/compose-start.mjs "$PROJECT" "$SRC/docker-compose.yml" "$SRC/deploy/podman/compose.override.yml" ||
    fail "compose: the services did not come up (podman logs ${PROJECT}_<service>_1)"
  local app=(keys identity catalog device billing webhooks gateway dashboard)
  for service in "${app[@]}"; do
    local c="${PROJECT}_${service}_1" uid ro
    uid="$(podman exec "$c" id -u)"
    ro="$(podman inspect --format '{{.HostConfig.ReadonlyRootfs}}' "$c")"
    [ "$uid" = 1000 ] && [ "$ro" = true ] || fail "compose: $service runs as uid $uid, read-only root $ro"
  done
  say "compose: every application container runs as uid 1000 on a read-only root"
  node scripts/container-smoke/webhooks-reach.mjs "$PROJECT" "$SRC/docker-compose.yml" "$SRC/deploy/podman/compose.override.yml" | sed -u 's/^/smoke: compose: /' ||
    fail "compose: the webhooks container reaches what it should not, or not what it needs (above)"
  DASHBOARD_API_KEY="$(node -p 'require(process.argv[1]).DASHBOARD_API_KEY' "$WORK/secrets.json")" \
    DASHBOARD_API_SECRET="$(node -p 'require(process.argv[1]).DASHBOARD_API_SECRET' "$WORK/secrets.json")" \
    WEBHOOK_RECEIVER_HOST="$HOST_IP" node scripts/container-smoke/journey.mjs "http://127.0.0.1:$gateway_port" | tee "$WORK/journey-compose.log" | sed -u 's/^/smoke: compose: /' ||
    journey_failed compose "${PROJECT}_gateway_1" "${PROJECT}_keys_1" "${PROJECT}_webhooks_1"
  outbox_drained compose "${PROJECT}_keys_1"
  user_events_consumed compose "$WORK/journey-compose.log" "${PROJECT}_keys_1" "${PROJECT}_billing_1" "${PROJECT}_device_1"
  curl -fsS "http://127.0.0.1:$dashboard_port/readyz" >/dev/null || fail "compose: the dashboard's /readyz on its published port"
  say "compose: the dashboard answers /readyz on its published port"
  # Dependants first, as `docker compose down` stops them.
  stop_timed compose "${PROJECT}_dashboard_1" "${PROJECT}_gateway_1" "${PROJECT}_webhooks_1" "${PROJECT}_device_1" "${PROJECT}_billing_1" \
    "${PROJECT}_identity_1" "${PROJECT}_catalog_1" "${PROJECT}_keys_1"
  compose down -v -t 20 >"$WORK/compose-down.log" 2>&1 || {
    tail -5 "$WORK/compose-down.log" >&2
    fail "podman-compose down"
  }
  COMPOSE_CREATED=""
  drop_forwarded_connections compose
  say "compose: passed in $(since "$started") s"
}

run_kube() { # k8s dir
  local started
  started="$(now)"
  mkdir -p "$WORK/kube"
  kubectl kustomize "$1" >"$WORK/kube/rendered.yaml" || fail "kubectl kustomize $1"
  node scripts/container-smoke/kube-manifest.mjs "$RUN_ID" "$WORK/secrets.json" "$WORK/kube/plan.json" <"$WORK/kube/rendered.yaml" |
    sed 's/^/smoke: /' || fail "kube: the manifests"
  KUBE_STARTED=1
  node scripts/container-smoke/kube-run.mjs "$WORK/kube/plan.json" "$NETWORK" "$HOST_IP" "$WORK/kube" | sed -u 's/^/smoke: /' ||
    fail "kube: the pods do not match the manifests (above)"
  DASHBOARD_API_KEY="$(node -p 'require(process.argv[1]).DASHBOARD_API_KEY' "$WORK/secrets.json")" \
    DASHBOARD_API_SECRET="$(node -p 'require(process.argv[1]).DASHBOARD_API_SECRET' "$WORK/secrets.json")" \
    WEBHOOK_RECEIVER_HOST="$HOST_IP" node scripts/container-smoke/journey.mjs "$(cat "$WORK/kube/gateway-url")" | tee "$WORK/kube/journey.log" | sed -u 's/^/smoke: kube: /' ||
    journey_failed kube "$(grep -m1 '^gateway-' "$WORK/kube/containers")" \
    "$(grep -m1 '^keys-' "$WORK/kube/containers")" "$(grep -m1 '^webhooks-' "$WORK/kube/containers")"
  outbox_drained kube "$(grep -m1 '^keys-' "$WORK/kube/containers")"
  user_events_consumed kube "$WORK/kube/journey.log" "$(grep -m1 '^keys-' "$WORK/kube/containers")" \
    "$(grep -m1 '^billing-' "$WORK/kube/containers")" "$(grep -m1 '^device-' "$WORK/kube/containers")"
  local containers
  mapfile -t containers < <(tac "$WORK/kube/containers")
  stop_timed kube "${containers[@]}"
  say "kube: passed in $(since "$started") s"
}

# A mutation of one file in a copy of the tree, which must change it (else the self-test proves nothing).
mutate() { # file sed-expression
  local before
  before="$(sha256sum "$1")"
  sed -i "$2" "$1"
  [ "$before" != "$(sha256sum "$1")" ] || fail "self-test: '$2' changed nothing in $1"
}

# Runs a step in a subshell that must fail, with a message matching the pattern.
expect_failure() { # name pattern command...
  local name="$1" pattern="$2"
  shift 2
  say "self-test: $name"
  if ("$@") >"$WORK/self-test.log" 2>&1; then
    cat "$WORK/self-test.log" >&2
    fail "self-test: $name: the run passed"
  fi
  grep -E "$pattern" "$WORK/self-test.log" | head -3 | sed -u 's/^/smoke:   caught: /'
  grep -qE "$pattern" "$WORK/self-test.log" || {
    tail -20 "$WORK/self-test.log" >&2
    fail "self-test: $name: failed, but not with /$pattern/"
  }
}

bash scripts/container-smoke/setup-engine.sh
bash scripts/container-smoke/build-base-image.sh "$BASE_IMAGE"
node scripts/container-smoke/secrets.mjs "$RUN_ID" "$WORK"
say "run $RUN_ID"

make_context "$SRC"
if [ "$MODE" = run ]; then
  build_image "$SRC" "$IMAGE"
  check_image "$IMAGE"
  start_servers
  make_network
  # ACS_SMOKE_PHASES (default "compose kube"): one of them alone, while working on it.
  for phase in ${ACS_SMOKE_PHASES:-compose kube}; do
    case "$phase" in
      compose) run_compose ;;
      kube) run_kube "$SRC/k8s" ;;
      *) fail "ACS_SMOKE_PHASES: unknown phase $phase" ;;
    esac
  done
  exit 0
fi

# --self-test: each mutation in a copy must fail the step that checks it. The kube runs use the
# image of the last full run (built when missing).
podman image exists "$IMAGE" || build_image "$SRC" "$IMAGE"
start_servers
make_network
KUBE_STARTED=1

cp -r "$SRC" "$WORK/broken-dockerfile"
mutate "$WORK/broken-dockerfile/Dockerfile" '/^USER 1000:1000$/d'
expect_failure "Dockerfile without its USER line" 'runs as uid 0' \
  eval 'build_image "$WORK/broken-dockerfile" localhost/acs:self-test && check_image localhost/acs:self-test'
podman rmi -f localhost/acs:self-test >/dev/null 2>&1 || true

cp -r "$SRC/k8s" "$WORK/k8s-env"
mutate "$WORK/k8s-env/keys.yaml" 's/- name: DATABASE_URL$/- name: DATABASE_URI/'
expect_failure "k8s/keys.yaml with DATABASE_URI for DATABASE_URL" 'DATABASE_URI is given, but the process reads no such variable' \
  run_kube "$WORK/k8s-env"
for pod in $(sed -n 's/-pod-0-.*/-pod-0/p' "$WORK/kube/containers" | sort -u); do podman pod rm -f -t 0 "$pod" >/dev/null; done
rm -rf "$WORK/kube"

cp -r "$SRC/k8s" "$WORK/k8s-probe"
mutate "$WORK/k8s-probe/gateway.yaml" '/readinessProbe:/{n;s|path: /healthz|path: /health|}'
expect_failure "k8s/gateway.yaml with readinessProbe path /health" 'readinessProbe GET http://[0-9.]+:8080/health answered 404' \
  run_kube "$WORK/k8s-probe"
say "self-test: passed (each mutation failed the run)"
