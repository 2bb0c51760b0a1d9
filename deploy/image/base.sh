#!/usr/bin/env bash
# Build the image's base from Debian packages when no registry base image can be pulled:
# Debian bookworm (Python 3.11), minimal, without docs, man pages and locales, imported as $1.
set -euo pipefail
ref=${1:-localhost/gpu-npd-base:bookworm}
tar=$(mktemp --suffix=.tar)
trap 'rm -f "$tar"' EXIT
mmdebstrap --quiet --variant=minbase \
  --include=python3,python3-venv,libudev1,ca-certificates,systemd,tini \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*' \
  bookworm "$tar"
podman import --quiet "$tar" "$ref" >/dev/null
echo "$ref"
