#!/usr/bin/env python3
"""A PII-redaction hook written as a small MCP server (stdio): an MCP message hook for tool responses.

Wire it in mcp.json (top level, or under one server's "hooks"):

    {
      "mcpServers": {
        "pii": {"command": "python3", "args": ["/path/to/pii_redactor.py"]},
        "crm": {"command": "...", "args": ["..."]}
      },
      "hooks": {"tools/call?direction=response": ["pii/redact"]}
    }

Switchboard calls the tool ``redact`` with ``{accept, mutated, message, reason}``, where ``message`` is the
JSON-RPC response (``result`` holds the tool's content). It returns the same shape: the result with
e-mail addresses, phone numbers and card-like numbers replaced, ``mutated: true`` and a reason naming what
it removed. Switchboard shows the reason on the tool card, with a before/after view, and tells the model
"MCP response was mutated by hooks. Reasons: …". Needs only the ``mcp`` package.
"""

from __future__ import annotations

import re
from typing import Any

from mcp.server.mcpserver import MCPServer

PATTERNS = {
    "e-mail address": (re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"), "[email redacted]"),
    "card number": (re.compile(r"\b(?:\d[ -]?){13,16}\b"), "[card redacted]"),
    "phone number": (re.compile(r"(?<!\w)\+?\d[\d ()-]{7,}\d"), "[phone redacted]"),
}

server = MCPServer("pii-redactor")


def _scrub(text: str, counts: dict[str, int]) -> str:
    for label, (pattern, replacement) in PATTERNS.items():
        text, n = pattern.subn(replacement, text)
        counts[label] = counts.get(label, 0) + n
    return text


def _scrub_value(value: Any, counts: dict[str, int]) -> Any:
    if isinstance(value, str):
        return _scrub(value, counts)
    if isinstance(value, list):
        return [_scrub_value(item, counts) for item in value]
    if isinstance(value, dict):
        return {key: _scrub_value(item, counts) for key, item in value.items()}
    return value


@server.tool(description="Redact personal data from an MCP tool response (a Switchboard message hook).")
def redact(message: dict[str, Any], accept: bool = True, mutated: bool = False, reason: str = "") -> dict[str, Any]:
    result = message.get("result")
    if not isinstance(result, dict):
        return {"accept": True}  # a request, or an error: nothing to redact
    counts: dict[str, int] = {}
    cleaned = dict(result)
    for key in ("content", "structuredContent"):
        if key in cleaned:
            cleaned[key] = _scrub_value(cleaned[key], counts)
    found = [
        f"{n} {label}{'es' if n > 1 and label.endswith('ss') else 's' if n > 1 else ''}"
        for label, n in counts.items()
        if n
    ]
    if not found:
        return {"accept": True}
    return {
        "accept": True,
        "mutated": True,
        "message": {**message, "result": cleaned},
        "reason": "redacted " + ", ".join(found),
    }


if __name__ == "__main__":
    server.run("stdio")
