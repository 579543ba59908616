#!/usr/bin/env bash
# Installs Debian's chromium for the dashboard's browser tests (playwright-core drives it; no
# browser is downloaded by npm). Run as root (CI does) or with sudo. Does nothing when present.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  echo "chromium: $(chromium --version 2>/dev/null || echo present at /usr/bin/chromium)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-chromium: run as root, e.g. sudo bash scripts/install-chromium.sh" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends chromium fonts-dejavu-core
chromium --version
