"""The browser's way back after an OAuth sign-in: :class:`RedirectCatcher`, a one-shot loopback HTTP server at
``http://127.0.0.1:<port>/callback`` that captures ``code`` and ``state``, refuses a foreign ``state``, shows
"You can close this tab" and gives up with a clear :class:`SignInError` after a timeout; :func:`free_port`
picks its port. ``oauth.BrowserOAuthProvider`` waits on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import secrets
import socket
from urllib.parse import parse_qs, urlsplit

from mcp.client.auth import AuthorizationCodeResult, OAuthFlowError

CALLBACK_PATH = "/callback"
LOOPBACK_HOST = "127.0.0.1"
DEFAULT_SIGN_IN_TIMEOUT = 300.0
_REQUEST_HEAD_TIMEOUT = 10.0
_REQUEST_HEAD_LIMIT = 16 * 1024


class SignInError(OAuthFlowError):
    """The browser sign-in did not complete: timeout, refused, foreign ``state``, busy port."""


_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>Switchboard</title></head>"
    "<body style='font-family:sans-serif;margin:3em'><h2>{title}</h2><p>{text}</p></body></html>"
)


class RedirectCatcher:
    """A one-shot HTTP server on ``127.0.0.1:<port>`` that waits for the authorization redirect.

    ``await start()``, send the user to the authorization URL, ``await wait()`` for the
    :class:`AuthorizationCodeResult`, ``await close()``. Only ``GET <path>`` counts; a ``state``
    other than ``expected_state``, an ``error`` answer or a missing ``code`` fails the wait.
    """

    def __init__(
        self,
        port: int = 0,
        *,
        expected_state: str | None,
        timeout: float = DEFAULT_SIGN_IN_TIMEOUT,
        path: str = CALLBACK_PATH,
        server: str = "the MCP server",
    ) -> None:
        self._port = port
        self._expected_state = expected_state
        self._timeout = timeout
        self._path = path
        self._label = server
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None

    @property
    def port(self) -> int:
        return self._port

    @property
    def redirect_uri(self) -> str:
        return f"http://{LOOPBACK_HOST}:{self._port}{self._path}"

    async def start(self) -> None:
        self._result = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._handle, LOOPBACK_HOST, self._port)
        except OSError as exc:
            raise SignInError(
                f"Could not sign in to {self._label}: port {self._port} on {LOOPBACK_HOST} is not free for the "
                f"browser's answer ({exc.strerror or exc}). Close the program using it and try again."
            ) from None
        self._port = self._server.sockets[0].getsockname()[1]

    async def wait(self) -> AuthorizationCodeResult:
        if self._result is None:
            raise RuntimeError("RedirectCatcher.wait() before start()")
        try:
            async with asyncio.timeout(self._timeout):
                return await asyncio.shield(self._result)
        except TimeoutError:
            raise SignInError(
                f"Signing in to {self._label} timed out: the browser did not come back to Switchboard within "
                f"{self._timeout:g} s. Restart the server to try again."
            ) from None

    async def close(self) -> None:
        if self._result is not None:
            if not self._result.done():
                self._result.cancel()
            elif not self._result.cancelled():
                self._result.exception()  # retrieved: no "exception was never retrieved" noise
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(_REQUEST_HEAD_TIMEOUT):
                head = await reader.readuntil(b"\r\n\r\n")
            status, title, text = self._answer(head.split(b"\r\n", 1)[0].decode("latin-1"))
            body = _PAGE.format(title=html.escape(title), text=html.escape(text)).encode("utf-8")
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
                "Cache-Control: no-store\r\nConnection: close\r\n\r\n".encode("latin-1")
                + body
            )
            await writer.drain()
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    def _answer(self, request_line: str) -> tuple[str, str, str]:
        """The response (status, title, text) to one request; settles the wait for the callback."""
        parts = request_line.split(" ")
        if len(parts) != 3 or parts[0] != "GET":
            return "405 Method Not Allowed", "Not here", "This address only takes the sign-in redirect."
        target = urlsplit(parts[1])
        if target.path != self._path:
            return "404 Not Found", "Not found", "This address only takes the sign-in redirect."
        result = self._result
        if result is None or result.done():
            return "409 Conflict", "Already answered", "This sign-in has already been answered."
        query = {name: values[0] for name, values in parse_qs(target.query).items()}
        state, code, error = query.get("state"), query.get("code"), query.get("error")
        expected = self._expected_state
        if expected is not None and (state is None or not secrets.compare_digest(state, expected)):
            result.set_exception(
                SignInError(f"Signing in to {self._label} failed: the answer did not belong to this sign-in (state).")
            )
            return "400 Bad Request", "Sign-in refused", "This answer does not belong to the sign-in Switchboard began."
        if error is not None:
            description = query.get("error_description")
            detail = f"{error}: {description}" if description else error
            result.set_exception(SignInError(f"Signing in to {self._label} failed: the server answered {detail}."))
            return "400 Bad Request", "Sign-in failed", f"The server answered: {detail}. You can close this tab."
        if not code:
            result.set_exception(SignInError(f"Signing in to {self._label} failed: no authorization code came back."))
            return "400 Bad Request", "Sign-in failed", "No authorization code came back. You can close this tab."
        result.set_result(AuthorizationCodeResult(code=code, state=state, iss=query.get("iss")))
        return "200 OK", "Signed in to Switchboard", "You can close this tab and return to Switchboard."


def free_port() -> int:
    """A currently free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind((LOOPBACK_HOST, 0))
        port: int = sock.getsockname()[1]
        return port


# -- the provider ---------------------------------------------------------------------------------
