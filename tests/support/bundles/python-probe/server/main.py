"""A stdlib-only MCP server (JSON-RPC over stdio) that reports the values the bundle was started with."""

import hashlib
import json
import os
import sys

workspace = sys.argv[sys.argv.index("--workspace") + 1] if "--workspace" in sys.argv else ""


def report():
    key = os.environ.get("PROBE_API_KEY", "")
    return (
        f"runtime=python key_sha256={hashlib.sha256(key.encode()).hexdigest()} workspace={workspace} "
        f"exists={os.path.isdir(workspace)} limit={os.environ.get('PROBE_LIMIT')}"
    )


def answer(request):
    method = request.get("method")
    if method == "initialize":
        version = request.get("params", {}).get("protocolVersion", "2025-06-18")
        info = {"name": "python-probe", "version": "1.0.0"}
        return {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
    if method == "tools/list":
        schema = {"type": "object", "properties": {}}
        return {"tools": [{"name": "probe", "description": "Report the configured values", "inputSchema": schema}]}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": report()}], "isError": False}
    return {}


for line in sys.stdin:
    if not line.strip():
        continue
    message = json.loads(line)
    if "id" not in message:
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": answer(message)}) + "\n")
    sys.stdout.flush()
