"""A stdlib-only MCP server (JSON-RPC over stdio) whose answer comes from a package bundled in server/lib."""

import json
import sys

from greeting import greet  # found only through PYTHONPATH=${__dirname}/server/lib


def answer(request):
    method = request.get("method")
    if method == "initialize":
        version = request.get("params", {}).get("protocolVersion", "2025-06-18")
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "python-lib", "version": "1.0.0"},
        }
    if method == "tools/list":
        return {
            "tools": [{"name": "greet", "description": "Greet", "inputSchema": {"type": "object", "properties": {}}}]
        }
    if method == "tools/call":
        return {"content": [{"type": "text", "text": greet()}], "isError": False}
    return {}


for line in sys.stdin:
    if not line.strip():
        continue
    message = json.loads(line)
    if "id" in message:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": answer(message)}) + "\n")
        sys.stdout.flush()
