"""A dependency-free MCP server (JSON-RPC over stdio) with one tool, ``word_count``."""

import json
import sys

TOOL = {
    "name": "word_count",
    "description": "Count the words in a text.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
}


def answer(request):
    method = request.get("method")
    if method == "initialize":
        version = request.get("params", {}).get("protocolVersion", "2025-06-18")
        info = {"name": "notes", "version": "1.0.0"}
        return {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
    if method == "tools/list":
        return {"tools": [TOOL]}
    if method == "tools/call":
        text = request.get("params", {}).get("arguments", {}).get("text", "")
        return {"content": [{"type": "text", "text": f"{len(text.split())} words"}], "isError": False}
    return {}


for line in sys.stdin:
    if line.strip():
        message = json.loads(line)
        if "id" in message:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": answer(message)}) + "\n")
            sys.stdout.flush()
