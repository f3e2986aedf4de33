"""The served host's HTTP side: the loopback-only listening socket (:func:`bind_loopback`), the SDK's
streamable HTTP app at ``/mcp`` built for that address (:func:`http_app`: its Host/Origin check refuses DNS
rebinding) and the bearer-token check in front of it (:class:`BearerAuth`). ``serve/service.py`` puts them
together with ``serve/host.py``'s MCP server; nothing here knows the tools.
"""

from __future__ import annotations

import hmac
import json
import socket
from typing import Any

from mcp.server.mcpserver import MCPServer

LOOPBACK = "127.0.0.1"
MCP_PATH = "/mcp"


def bind_loopback(port: int = 0) -> socket.socket:
    """A listening TCP socket on 127.0.0.1 (``port`` 0: a free one); never on another interface."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOOPBACK, port))
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


class BearerAuth:
    """ASGI middleware: every HTTP request needs ``Authorization: Bearer <token>``, else 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.set_token(token)

    def set_token(self, token: str) -> None:
        """From the next request on, only ``token`` is accepted (a regenerated token)."""
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = next((v for k, v in scope.get("headers", []) if k.lower() == b"authorization"), b"")
            if not hmac.compare_digest(given, self._expected):
                body = json.dumps(
                    {"error": "invalid_token", "error_description": "Switchboard needs its bearer token."}
                ).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="switchboard", error="invalid_token"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(server: MCPServer, clients: Any = None) -> Any:
    """The ASGI app the served host runs, before the bearer check (which ``HttpHostService`` wraps around it,
    so a regenerated token applies at once): the SDK's streamable HTTP app at ``/mcp``, built for the loopback
    address so that its Host/Origin check refuses a request naming another host (DNS rebinding: 421/403),
    recording the clients in ``clients`` (a :class:`~.http_clients.ClientLog`) when given."""
    from desktop_app.runtime.serve.clients import RecordClients

    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=LOOPBACK)
    return app if clients is None else RecordClients(app, clients)
