#!/usr/bin/env bash
# Install the real MCP servers the integration tests talk to into a project-local, git-ignored folder.
#
#   scripts/install-test-servers.sh            # idempotent: does nothing when the pinned versions are present
#
# Result: .test-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js, run with `node`
# (no npx cold start), .test-servers/mcpb/node_modules/.bin/mcpb (the official MCP Bundle CLI) and the MCP
# conformance suite in .test-servers/conformance/ (scripts/run-conformance.sh --install-only). Needs Node >= 20 and npm on PATH. Bump a version here, and only here, to update it.
set -euo pipefail

EVERYTHING_VERSION="2026.8.31"
MCPB_VERSION="2.1.2"  # the official MCP Bundle CLI: the tests pack, sign and verify bundles with it
# The official MCP Apps example servers (issue 26): their views render in the window under test.
APPS_BASIC_VERSION="2.0.3"  # @modelcontextprotocol/server-basic-vanillajs
APPS_PDF_VERSION="2.0.4"    # @modelcontextprotocol/server-pdf

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.test-servers"
package_json="$dest/node_modules/@modelcontextprotocol/server-everything/package.json"

# npm comes from Debian when missing; a Node older than 20 (Debian 12 ships 18) is supplemented by a
# project-local Node 22 from the npm registry (the `node` package), which the tests prefer when present.
if ! command -v npm >/dev/null 2>&1; then
    echo "install-test-servers: installing nodejs and npm from Debian"
    "$root/scripts/apt-install.sh" nodejs npm
fi
NODE="$(command -v node || true)"
node_major() { "$1" -e 'process.stdout.write(String(process.versions.node.split(".")[0]))' 2>/dev/null || echo 0; }
if [ -z "$NODE" ] || [ "$(node_major "$NODE")" -lt 20 ]; then
    local_node="$dest/node_modules/.bin/node"
    if [ ! -x "$local_node" ] || [ "$(node_major "$local_node")" -lt 20 ]; then
        echo "install-test-servers: system Node is missing or older than 20; installing node@22 into $dest"
        mkdir -p "$dest"
        npm install --prefix "$dest" --no-audit --no-fund --loglevel=error "node@22"
    fi
    NODE="$local_node"
    export PATH="$dest/node_modules/.bin:$PATH"
fi

# The MCP Bundle CLI, in its own prefix: .test-servers/mcpb/node_modules/.bin/mcpb
mcpb_json="$dest/mcpb/node_modules/@anthropic-ai/mcpb/package.json"
if [ "$("$NODE" -e 'try{process.stdout.write(require(process.argv[1]).version)}catch(e){}' "$mcpb_json" 2>/dev/null)" != "$MCPB_VERSION" ]; then
    echo "install-test-servers: installing @anthropic-ai/mcpb@$MCPB_VERSION into $dest/mcpb"
    mkdir -p "$dest/mcpb"
    [ -f "$dest/mcpb/package.json" ] || printf '{\n  "name": "switchboard-test-mcpb",\n  "private": true\n}\n' >"$dest/mcpb/package.json"
    npm install --prefix "$dest/mcpb" --save-exact --no-audit --no-fund --loglevel=error "@anthropic-ai/mcpb@$MCPB_VERSION"
else
    echo "install-test-servers: @anthropic-ai/mcpb@$MCPB_VERSION already installed"
fi

# The MCP Apps example servers, in their own prefix: .test-servers/apps/node_modules/@modelcontextprotocol/…
apps_version() {
    "$NODE" -e 'try{process.stdout.write(require(process.argv[1]).version)}catch(e){}' \
        "$dest/apps/node_modules/@modelcontextprotocol/$1/package.json" 2>/dev/null
}
if [ "$(apps_version server-basic-vanillajs)" != "$APPS_BASIC_VERSION" ] \
    || [ "$(apps_version server-pdf)" != "$APPS_PDF_VERSION" ]; then
    echo "install-test-servers: installing the MCP Apps example servers into $dest/apps"
    mkdir -p "$dest/apps"
    [ -f "$dest/apps/package.json" ] || printf '{\n  "name": "switchboard-test-apps",\n  "private": true\n}\n' >"$dest/apps/package.json"
    npm install --prefix "$dest/apps" --save-exact --no-audit --no-fund --loglevel=error \
        "@modelcontextprotocol/server-basic-vanillajs@$APPS_BASIC_VERSION" "@modelcontextprotocol/server-pdf@$APPS_PDF_VERSION"
else
    echo "install-test-servers: the MCP Apps example servers are already installed"
fi

# The MCP conformance suite (Node 22 and the pinned suite, in .test-servers/conformance/): the client and
# served-host conformance tests run it, so a clean clone must have it before pytest collects them.
"$root/scripts/run-conformance.sh" --install-only

installed_version() {
    [ -f "$package_json" ] || return 0
    "$NODE" -e 'process.stdout.write(require(process.argv[1]).version)' "$package_json" 2>/dev/null || true
}

if [ "$(installed_version)" = "$EVERYTHING_VERSION" ]; then
    echo "install-test-servers: @modelcontextprotocol/server-everything@$EVERYTHING_VERSION already installed"
    exit 0
fi

mkdir -p "$dest"
if [ ! -f "$dest/package.json" ]; then
    printf '{\n  "name": "switchboard-test-servers",\n  "private": true\n}\n' >"$dest/package.json"
fi
echo "install-test-servers: installing @modelcontextprotocol/server-everything@$EVERYTHING_VERSION into $dest"
npm install --prefix "$dest" --save-exact --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION"

if [ "$(installed_version)" != "$EVERYTHING_VERSION" ]; then
    echo "install-test-servers: installation did not produce version $EVERYTHING_VERSION" >&2
    exit 1
fi
