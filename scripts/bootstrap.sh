#!/usr/bin/env bash
# Idempotent set-up for `make run` and `make test` on a fresh Debian/Ubuntu box (or any box with Python 3.11+).
#  1. the Debian libraries Qt needs (offscreen and xcb), installed only where missing;
#  2. .venv with the project and its test extras, reinstalled only when pyproject.toml changes.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
QT_DEBS=(libegl1 libgl1 libfontconfig1 libfreetype6 libxkbcommon0 libxkbcommon-x11-0 libdbus-1-3 libglib2.0-0
         libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0
         libxcb-randr0 libxcb-shape0 libxcb-xfixes0 libxcb-xinerama0 libxcb-xkb1 libxrender1 fonts-dejavu-core)

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "bootstrap: $PYTHON not found; install Python 3.11 or newer (Debian: apt-get install python3)," \
       "or point PYTHON at one" >&2
  exit 1
fi
if ! "$PYTHON" -c 'import sys; raise SystemExit(sys.version_info < (3, 11))'; then
  echo "bootstrap: Python 3.11 or newer is needed (found $("$PYTHON" --version 2>&1))" >&2
  exit 1
fi

scripts/apt-install.sh "${QT_DEBS[@]}"

# A venv without pip (Debian's `python3 -m venv` leaves one behind when python3-venv is missing) is
# rebuilt, so a run that failed there is finished by the next one.
if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
  rm -rf .venv
  if ! "$PYTHON" -m venv .venv >/dev/null 2>&1; then
    echo "bootstrap: the Python venv module is missing; installing python3-venv"
    scripts/apt-install.sh python3-venv
    rm -rf .venv
    "$PYTHON" -m venv .venv
  fi
fi

stamp=".venv/.switchboard-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "bootstrap: installing Switchboard and its test extras into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check -U pip
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
  rm -f .venv/.switchboard-*
  touch "$stamp"
fi
