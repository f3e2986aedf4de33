#!/usr/bin/env bash
# Install Debian packages that are missing, as root or through sudo, without prompts. Does nothing when
# every package is installed already (so callers stay idempotent) or on a box without dpkg.
#
#   scripts/apt-install.sh PACKAGE...
set -euo pipefail

command -v dpkg-query >/dev/null 2>&1 || exit 0
missing=()
for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
((${#missing[@]})) || exit 0

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "apt-install: need root to install ${missing[*]}: run this as root, or install sudo" >&2
    exit 1
fi
echo "apt-install: installing ${missing[*]}"
"${as_root[@]}" apt-get update -qq
# `env` after sudo: sudo resets the environment, so a DEBIAN_FRONTEND set before it would be dropped.
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
