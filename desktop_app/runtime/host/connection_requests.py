"""Requests around a server connection (:class:`RequestTarget`, what ``host.connection`` provides) besides
tool calls.

User-initiated requests (resources, prompts, subscriptions) go through :func:`server_request`, which raises
:class:`~desktop_app.runtime.errors.ServerRequestError` with a message for the user (unlike tool calls,
which always come back as an outcome for the model). Also the roots notification for handshake-era
servers and the text for a failed start.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

import anyio
import mcp_types as mtypes
from mcp import Client, MCPError, StdioServerParameters
from mcp.server.mcpserver import MCPServer
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from desktop_app.runtime.errors import ServerRequestError
from desktop_app.runtime.host.oauth import SignInError, SignInRequired
from desktop_app.runtime.host.transports import HttpTarget

logger = logging.getLogger(__name__)

_T = TypeVar("_T")


class RequestTarget(Protocol):
    """What a request needs of a server's connection (``ServerConnection``; this module does not import it)."""

    @property
    def name(self) -> str: ...

    @property
    def state(self) -> str: ...

    @property
    def error(self) -> object: ...

    @property
    def call_timeout(self) -> float: ...

    @property
    def client(self) -> Client | None: ...


def leaf_exception(exc: BaseException) -> BaseException:
    """The first non-group exception inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def server_request(connection: RequestTarget, what: str, operation: Callable[[Client], Awaitable[_T]]) -> _T:
    """Run ``operation`` on the connection's live client, bounded by its call timeout.

    ``what`` completes "cannot …" in the error message (e.g. ``"read demo://x"``)."""
    client = connection.client
    if client is None:
        reason = f": {connection.error}" if connection.error else ""
        raise ServerRequestError(
            f"MCP server '{connection.name}' is not running ({connection.state}{reason}); cannot {what}."
        )
    try:
        with anyio.fail_after(connection.call_timeout):
            return await operation(client)
    except ServerRequestError:
        raise
    except TimeoutError:
        raise ServerRequestError(
            f"MCP server '{connection.name}' did not answer within {connection.call_timeout:g} s; cannot {what}."
        ) from None
    except Exception as exc:
        leaf = leaf_exception(exc)
        if isinstance(leaf, MCPError):
            detail = f"{leaf.error.message} (error {leaf.error.code})"
        else:
            detail = f"{type(leaf).__name__}: {leaf}"
        raise ServerRequestError(f"MCP server '{connection.name}' could not {what}: {detail}") from exc


async def notify_roots_changed(connection: RequestTarget) -> bool:
    """Tell a handshake-era server that the roots changed (``notifications/roots/list_changed``).

    2026-07-28 has no such notification (servers ask for roots inside each request), and the SDK's
    ``send_roots_list_changed`` is deprecated for that reason, so the typed notification is sent through
    the session directly, and only on legacy connections. Returns whether it was sent."""
    client = connection.client
    if client is None or client.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return False
    try:
        await client.session.send_notification(mtypes.RootsListChangedNotification())
    except Exception as exc:  # best effort; a broken connection is noticed by its own task
        logger.info("MCP server '%s': could not send roots/list_changed: %s", connection.name, exc)
        return False
    return True


def describe_start_error(
    target: StdioServerParameters | HttpTarget | str | MCPServer | None, exc: BaseException, stderr_tail: str
) -> str:
    """What the user reads when a server failed to start, with the mcp.json field to check."""
    if isinstance(target, StdioServerParameters):
        command = target.command
        if isinstance(exc, FileNotFoundError):
            return (
                f"could not start '{command}': command not found; check 'command' in mcp.json "
                "(is it installed and on PATH?)"
            )
        if isinstance(exc, PermissionError):
            return f"could not start '{command}': permission denied; check 'command' in mcp.json"
        if isinstance(exc, OSError):
            return f"could not start '{command}': {exc}; check 'command' and 'args' in mcp.json"
    if isinstance(exc, SignInRequired | SignInError):
        return str(exc)  # already says what happened and what to do (sign in, or add "oauth")
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, MCPError) and exc.error.code == mtypes.CONNECTION_CLOSED:
        detail = "the server closed the connection during start-up"
    if isinstance(target, HttpTarget | str) and not isinstance(exc, MCPError):
        url = target.url if isinstance(target, HttpTarget) else target
        return f"could not connect to {url}: {type(exc).__name__}: {detail}; check 'url' and 'headers' in mcp.json"
    hint = f" (last stderr line: {stderr_tail})" if stderr_tail else ""
    return f"failed to start: {detail}{hint}; check its command, args and env in mcp.json"


__all__ = ["describe_start_error", "leaf_exception", "notify_roots_changed", "server_request"]
