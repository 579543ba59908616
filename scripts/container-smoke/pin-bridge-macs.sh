#!/usr/bin/env bash
# Keeps each given bridge's MAC address fixed from the moment the bridge appears, until killed
# (scripts/container-smoke.sh runs it in the background; docs/deploy.md, "Running the deployment
# files with podman").
#
# Why: netavark 1.4 (Debian bookworm's, with podman 4.3) leaves its bridges' MAC address to the
# kernel, which gives a bridge the lowest MAC of its ports and changes it whenever that port leaves
# (a container stops) or a lower one joins. The containers still hold the old address for the host's
# end of the bridge (the network's gateway address) in their ARP caches, so what they send to the
# host goes nowhere until the entry goes stale: measured, a stopping service's AMQP cancel was
# retransmitted for 7 s and never acknowledged (its stop took the full 6 s bound), and lookups from
# aardvark-dns on that address took 10 s. An address set explicitly (addr_assign_type 3) is kept.
# netavark sets one itself since its PR 833 (2023, "bridge: force static mac on bridge interface"),
# after Debian bookworm's 1.4; the CNI bridge plugin derives one from the bridge's address.
#   bash scripts/container-smoke/pin-bridge-macs.sh <interface>...
set -uo pipefail

if [ $# -eq 0 ] || [ "$1" = --help ]; then
  echo "usage: bash scripts/container-smoke/pin-bridge-macs.sh <interface>...  (runs until killed)"
  [ $# -eq 0 ] && exit 2
  exit 0
fi

# netavark removes a bridge when its last container leaves and makes it again on the next start
# (compose down, then kube play on the same network): so this keeps watching.
while true; do
  for dev in "$@"; do
    sys="/sys/class/net/$dev"
    [ -r "$sys/addr_assign_type" ] || continue
    [ "$(cat "$sys/addr_assign_type" 2>/dev/null)" = 3 ] && continue
    mac="$(cat "$sys/address" 2>/dev/null)" || continue
    ip link set dev "$dev" address "$mac" 2>/dev/null && echo "pin-bridge-macs: $dev keeps $mac"
  done
  sleep 0.1
done
