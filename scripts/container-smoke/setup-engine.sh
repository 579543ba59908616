#!/usr/bin/env bash
# Makes podman usable on a machine like CI's (Debian bookworm, root, no systemd, hybrid cgroup
# mounts; docs/deploy.md, "Running the deployment files with podman"). Idempotent: each step says
# what it does or that it was already done.
#   - podman, runc, debootstrap and podman-compose from Debian, when missing, netavark and aardvark-dns
#     (the network backend: a container on two compose networks, as the gateway is, resolves the
#     service names of both; CNI's dnsname asks one network's server only, which denies the other's
#     names), catatonit (kube play's pod infra containers run it) and iptables (netavark sets up each
#     network's NAT and firewall rules with it, and fails with "netavark: No such file or directory"
#     without it): podman only recommends or suggests them, and --no-install-recommends leaves them out;
#   - /etc/containers/containers.conf: `default_ulimits = []` under [containers] (podman's default
#     ulimits cannot be set here) and `runtime = "runc"` under [engine] (crun refuses these cgroup
#     mounts; podman-compose runs plain `podman`, so the runtime must be the configured one), and
#     `network_backend = "netavark"` under [network] (podman 4.3 keeps CNI where it has used it before).
set -euo pipefail

say() { echo "engine: $*"; }

missing=()
for tool in podman:podman runc:runc debootstrap:debootstrap podman-compose:podman-compose; do
  command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
[ -x /usr/lib/podman/netavark ] || missing+=(netavark)
[ -x /usr/lib/podman/aardvark-dns ] || missing+=(aardvark-dns)
# kube play's pods start with an infra container that runs catatonit (another of podman's recommends).
command -v catatonit >/dev/null || [ -x /usr/libexec/podman/catatonit ] || missing+=(catatonit)
command -v iptables >/dev/null || missing+=(iptables)
if [ "${#missing[@]}" -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" slirp4netns uidmap >/dev/null
else
  say "podman, runc, debootstrap, podman-compose, netavark, aardvark-dns, catatonit and iptables already installed"
fi

conf=/etc/containers/containers.conf
mkdir -p /etc/containers
touch "$conf"
# Adds `key = value` under [section] unless the key is already set there.
ensure_setting() { # section key value
  if awk -v s="[$1]" -v k="$2" '$0 == s {in_s = 1; next} /^\[/ {in_s = 0} in_s && $1 == k {found = 1} END {exit !found}' "$conf"; then
    say "$conf: $2 already set under [$1]"
    return
  fi
  say "$conf: setting $2 = $3 under [$1]"
  if grep -qx "\[$1\]" "$conf"; then
    sed -i "/^\[$1\]\$/a $2 = $3" "$conf"
  else
    printf '\n[%s]\n%s = %s\n' "$1" "$2" "$3" >>"$conf"
  fi
}
ensure_setting containers default_ulimits '[]'
ensure_setting engine runtime '"runc"'
ensure_setting network network_backend '"netavark"'

podman --version | sed 's/^/engine: /'
