#!/usr/bin/env bash
# Installs promtool (Debian's prometheus package) for the alerting-rule tests in test/monitoring
# (`promtool check rules`, `promtool test rules`). Run as root (CI does) or with sudo. Does
# nothing when present. The package also ships the Prometheus server; nothing here starts it.
set -euo pipefail
if command -v promtool >/dev/null 2>&1; then
  promtool --version 2>&1 | head -1
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-promtool: run as root, e.g. sudo bash scripts/install-promtool.sh" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends prometheus
promtool --version 2>&1 | head -1
