"""The SDK's ``MCPServer`` as Switchboard's in-process servers make it (built-ins, tasks, workflows, skills,
agents, plugin prompts): :func:`in_process_server`.

What it changes is the protection of the MCP "request state" (the 2026-07-28 spec's multi-round-trip
``input_required`` results, whose opaque state the client hands back). By default every ``MCPServer`` seals
it with AES-256-GCM under a key derived with HKDF through ``cryptography``, and the first such server
initialises ``cryptography``'s OpenSSL bindings: ~1.4 MB of RSS on the first use of the app, for a
token that never leaves this process (an in-process server's only client is this process's host over an
in-memory stream; the served HTTP host does not expose them). :class:`SignedState` authenticates it with
HMAC-SHA256 from the standard library instead, under a key made now and held only by this process: a token
the server did not mint, or one changed on the way, is refused as before; the payload is readable by the
client (the SDK allows a sign-only codec), and that client is Switchboard itself.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the SDK's server half loads with the first server, not with this module
    from mcp.server.mcpserver import MCPServer

_PREFIX = "s1."
"""Format version, bound under the tag (a token never names its algorithm)."""


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SignedState:
    """A request-state codec (the SDK's ``RequestStateCodec``): ``s1.<payload>.<tag>``, base64url, with an
    HMAC-SHA256 tag over the prefix and the payload, compared in constant time."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = os.urandom(32) if key is None else bytes(key)
        if len(self._key) < 32:
            raise ValueError("the request-state key must be at least 32 bytes")

    def _tag(self, body: str) -> bytes:
        return hmac.new(self._key, (_PREFIX + body).encode("ascii"), hashlib.sha256).digest()

    def seal(self, payload: bytes) -> str:
        body = _b64(payload)
        return f"{_PREFIX}{body}.{_b64(self._tag(body))}"

    def unseal(self, token: str) -> bytes:
        from mcp.server.request_state import InvalidRequestState

        if not token.startswith(_PREFIX) or token.count(".") != 2:
            raise InvalidRequestState("malformed")
        body, tag = token[len(_PREFIX) :].split(".")
        try:
            expected, payload = _unb64(tag), _unb64(body)
        except (binascii.Error, ValueError):
            raise InvalidRequestState("malformed") from None
        if not hmac.compare_digest(expected, self._tag(body)):
            raise InvalidRequestState("unauthentic")
        return payload


def in_process_server(name: str, **kwargs: Any) -> MCPServer:
    """``MCPServer(name, **kwargs)`` with its request state signed by :class:`SignedState` (one key per server)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.request_state import RequestStateSecurity

    return MCPServer(name, request_state_security=RequestStateSecurity(codec=SignedState()), **kwargs)
