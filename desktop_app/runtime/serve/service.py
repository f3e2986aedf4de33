"""The served host's life in a running process: start it on the loop, stop it, restart it when its settings
change, and keep its bearer token, its clients and its waiting approvals. Qt-free.

Both ``switchboard serve`` and the desktop app run the host through :class:`HttpHostService`: a socket bound
to 127.0.0.1 (:func:`~.http.bind_loopback`), :func:`~.http_host.make_http_host` behind the bearer
check and :class:`~.http_clients.RecordClients`, served by uvicorn as a task of the current event loop
(its signal handling off: the process owns its signals). The token lives in the keyring (service
``switchboard``, entry ``serve-token``): created on first use, replaced by :meth:`regenerate_token` (which
the running host honours from the next request), never logged (the redaction step knows it).

The agents' tools follow the runtime's catalog while the host runs (``reload_agents`` after an agent is
added or edited): the served list changes in place and connected clients are told
``notifications/tools/list_changed``; the host is not restarted and nobody is disconnected.

Tool calls that need an approval are asked through ``ask`` (the terminal for ``serve``), else through
:class:`~.approvals.HttpApprovals`, which holds each question under an id this runtime owns until the UI answers it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import secrets
import weakref
from collections.abc import Callable, Iterator
from typing import Any, Literal

from desktop_app.runtime.secret_scope import reserve
from desktop_app.runtime.serve.approvals import HttpApprovals
from desktop_app.runtime.serve.clients import ClientLog
from desktop_app.runtime.serve.host import TOKEN_NAME

log = logging.getLogger(__name__)

ServiceState = Literal["off", "starting", "serving", "failed"]
STOP_GRACE_S = 5


class HttpHostError(Exception):
    """The host could not start; the message says what happened and what to do, in a sentence."""


def token(credentials: Any, *, create: bool = True) -> str | None:
    """The bearer token from the keyring (created there on first use when ``create``)."""
    value = credentials.get(TOKEN_NAME)
    if not value and create:
        value = secrets.token_urlsafe(32)
        credentials.set(TOKEN_NAME, value)
    reserve(value=value)  # no server or hook may be handed the bearer token (secret_scope)
    return value or None


def connection_configs(url: str, bearer: str) -> dict[str, dict[str, Any]]:
    """The JSON each client's config file needs to reach the served host, by client name.

    Claude Desktop (``claude_desktop_config.json``) starts local servers only, so it goes through the
    ``mcp-remote`` stdio bridge, with the header in an environment variable (no spaces in ``args``: Claude
    Desktop on Windows mangles them); VS Code (``.vscode/mcp.json``) and Cursor (``~/.cursor/mcp.json``) speak
    streamable HTTP with headers themselves."""
    header = f"Bearer {bearer}"
    return {
        "Claude Desktop": {
            "mcpServers": {
                "switchboard": {
                    "command": "npx",
                    "args": ["-y", "mcp-remote", url, "--allow-http", "--header", "Authorization:${AUTH_HEADER}"],
                    "env": {"AUTH_HEADER": header},
                }
            }
        },
        "VS Code": {"servers": {"switchboard": {"type": "http", "url": url, "headers": {"Authorization": header}}}},
        "Cursor": {"mcpServers": {"switchboard": {"url": url, "headers": {"Authorization": header}}}},
    }


CONFIG_FILES = {
    "Claude Desktop": "claude_desktop_config.json (Settings → Developer → Edit Config)",
    "VS Code": ".vscode/mcp.json in your workspace (or MCP: Open User Configuration)",
    "Cursor": "~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
}


class HttpHostService:
    """The served host of one runtime: :meth:`start`, :meth:`stop`, :meth:`apply` (settings), state and data.

    ``ask``: how calls needing an approval are asked (default ``"ui"``: :attr:`approvals`, answered by the UI;
    ``None``: nobody to ask, they are denied with a reason);
    ``agent_runner``: registers the default agent's ``chat-with-`` server when the assembly left it out."""

    def __init__(self, runtime: Any, host: Any, credentials: Any, *, agent_runner: Any = None, ask: Any = "ui") -> None:
        self.runtime = runtime
        self.host = host
        self.credentials = credentials
        self.agent_runner = agent_runner
        self.approvals = HttpApprovals()
        self.ask = self.approvals.ask if ask == "ui" else ask
        self.clients = ClientLog()
        self.state: ServiceState = "off"
        self.url = ""
        self.error = ""
        self.expose: list[str] = []
        self._port_asked = 0
        self._unwatch: Callable[[], None] = lambda: None
        self._notifying: set[asyncio.Task[None]] = set()
        self._listeners: list[Callable[[], None]] = []
        self._server: Any = None
        self._task: asyncio.Task[None] | None = None
        self._mcp: Any = None
        self._auth: Any = None
        self._lock = asyncio.Lock()

    # -- state -------------------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """``listener()`` after every change of :attr:`state`, :attr:`url` or :attr:`error`."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _set(self, state: ServiceState, url: str = "", error: str = "") -> None:
        self.state, self.url, self.error = state, url, error
        for listener in list(self._listeners):
            listener()

    @property
    def port(self) -> int | None:
        return int(self.url.rsplit(":", 1)[1].split("/")[0]) if self.url else None

    # -- the token ---------------------------------------------------------------------------------------

    def token(self) -> str:
        value = token(self.credentials)
        assert value is not None
        return value

    def regenerate_token(self) -> str:
        """A new token in the keyring; the running host accepts only it from the next request on."""
        value = secrets.token_urlsafe(32)
        self.credentials.set(TOKEN_NAME, value)
        reserve(value=value)
        if self._auth is not None:
            self._auth.set_token(value)
        return value

    def served_conversation(self, conversation_id: str) -> str | None:
        """The client label when ``conversation_id`` runs an agent call that came over HTTP, else ``None``."""
        return self._mcp.conversations.get(conversation_id) if self._mcp is not None else None

    def configs(self) -> dict[str, dict[str, Any]]:
        """The clients' config snippets for the running host (``{}`` when it is not serving)."""
        return connection_configs(self.url, self.token()) if self.state == "serving" else {}

    # -- start and stop ----------------------------------------------------------------------------------

    async def apply(self, settings: Any) -> None:
        """Follow ``settings`` (``Settings.http_host``): stop when off, (re)start when on and changed."""
        async with self._lock:
            if not settings.enabled:
                await self._stop()
                return
            same = self.state == "serving" and self._port_asked == settings.port and self.expose == settings.expose
            if not same:
                await self._stop()
                await self._start(settings.port, list(settings.expose))
            else:  # the same host; its agents as they are now (the settings may define some)
                self._agents_changed()

    async def start(self, port: int = 0, expose: list[str] | None = None, *, bearer: str | None = "") -> str:
        """Serve on 127.0.0.1:``port`` (0: a free one); returns the URL. ``bearer`` ``""``: the keyring's
        token; ``None``: no bearer check (the conformance stand-in only). Raises :class:`HttpHostError`."""
        async with self._lock:
            await self._stop()
            await self._start(port, list(expose or []), bearer=bearer)
            return self.url

    async def stop(self) -> None:
        async with self._lock:
            await self._stop()

    async def wait(self) -> None:
        """Until the host stops (``request_stop``, or uvicorn gives up)."""
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._task)

    def request_stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True

    async def _start(self, port: int, expose: list[str], *, bearer: str | None = "") -> None:
        import uvicorn

        from desktop_app.runtime.serve.host import make_http_host
        from desktop_app.runtime.serve.http import LOOPBACK, MCP_PATH, BearerAuth, bind_loopback, http_app

        self._port_asked, self.expose = port, expose
        self._set("starting")
        try:
            sock = bind_loopback(port)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                message = (
                    f"Port {port} on 127.0.0.1 is already in use by another program. Choose another port in "
                    "Settings → MCP over HTTP (0 picks a free one), or stop the program that uses it."
                )
            else:
                message = f"Cannot listen on 127.0.0.1:{port} ({exc.strerror or exc}). Choose another port."
            self._set("failed", error=message)
            raise HttpHostError(message) from exc
        try:
            self._register_default_agent()
            catalog = self.runtime.agents
            self._mcp = make_http_host(
                self.host, catalog, self.runtime.policy, self.ask, runtime=self.runtime, expose=expose,
                clients=self.clients,
            )  # fmt: skip
            watch = getattr(catalog, "subscribe", None)
            self._unwatch = watch(self._agents_changed) if callable(watch) else (lambda: None)
            app: Any = http_app(self._mcp, self.clients)  # behind the bearer check: a refused request is nobody's
            if bearer is not None:
                self._auth = app = BearerAuth(app, bearer or self.token())
            started = asyncio.get_running_loop().create_future()
            config = uvicorn.Config(
                _StartupSignal(app, started),
                log_level="warning",
                lifespan="on",
                access_log=False,
                timeout_graceful_shutdown=STOP_GRACE_S,
            )  # an open client stream must not hold up a stop for long
            self._server = _QuietServer(config)
            self._task = asyncio.create_task(self._serve(sock, started), name="http-host")
            await asyncio.wait({started, self._task}, return_when=asyncio.FIRST_COMPLETED)
            if not started.done() or not started.result():
                raise HttpHostError("The MCP HTTP host did not start; see the log for the details.")
        except BaseException as exc:
            await self._stop()
            message = str(exc) if isinstance(exc, HttpHostError) else f"The MCP HTTP host did not start: {exc}"
            self._set("failed", error=message)
            if isinstance(exc, HttpHostError):
                raise
            raise HttpHostError(message) from exc
        self._set("serving", url=f"http://{LOOPBACK}:{sock.getsockname()[1]}{MCP_PATH}")

    async def _serve(self, sock: Any, started: asyncio.Future[bool]) -> None:
        try:
            await self._server.serve(sockets=[sock])
        finally:
            sock.close()
            if not started.done():
                started.set_result(False)

    def _agents_changed(self) -> None:
        """The catalog changed in place: serve its agents as they are now and tell the clients."""
        if self._mcp is None:
            return
        self._register_default_agent()  # a new built-in default agent needs its server
        if self._mcp.sync_agents():
            task = asyncio.ensure_future(self._mcp.tools_changed())
            self._notifying.add(task)
            task.add_done_callback(self._notifying.discard)

    def _register_default_agent(self) -> None:
        if self.agent_runner is None:
            if getattr(self.runtime, "agents", None) is None:
                return
            from desktop_app.runtime.agents.server import AgentRunner

            self.agent_runner = AgentRunner(self.runtime, self.runtime.agents)
        from desktop_app.runtime.agents.scoped import agent_server_name
        from desktop_app.runtime.agents.server import AGENT_CALL_TIMEOUT, make_agent_server

        catalog = self.agent_runner.catalog
        for name in catalog.names():  # the built-in default agent: in the app, only its conversations use it
            if not catalog.unrestricted(name) or self.host.is_builtin(agent_server_name(name)):
                continue
            with contextlib.suppress(ValueError):  # a user server has the name: register_agents reported it
                self.host.register_builtin(
                    agent_server_name(name),
                    lambda name=name: make_agent_server(self.agent_runner, name),
                    call_timeout=AGENT_CALL_TIMEOUT,
                )

    async def _stop(self) -> None:
        self._unwatch()
        self._unwatch = lambda: None
        self.approvals.deny_all("the MCP HTTP host stopped")
        self.approvals.forget()
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._task
        if self._mcp is not None:
            self._mcp.close()
        self._server = self._task = self._mcp = self._auth = None
        self.clients.clear()
        if self.state != "off":
            self._set("off")


class _StartupSignal:
    """ASGI wrapper: resolves ``started`` when the app's lifespan start-up completes (or fails)."""

    def __init__(self, app: Any, started: asyncio.Future[bool]) -> None:
        self.app = app
        self.started = started

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return

        async def watched(message: dict[str, Any]) -> None:
            await send(message)
            kind = message.get("type")
            if kind in ("lifespan.startup.complete", "lifespan.startup.failed") and not self.started.done():
                self.started.set_result(kind == "lifespan.startup.complete")

        await self.app(scope, receive, watched)


def _quiet_server_class() -> Any:
    import uvicorn

    class QuietServer(uvicorn.Server):
        """uvicorn's server without its own signal handling (it would re-raise the signal after shutdown)."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return QuietServer


def _QuietServer(config: Any) -> Any:
    return _quiet_server_class()(config)


_services: weakref.WeakKeyDictionary[Any, HttpHostService] = weakref.WeakKeyDictionary()


def service_for(runtime: Any, host: Any = None, *, agent_runner: Any = None) -> HttpHostService:
    """The one :class:`HttpHostService` of ``runtime`` in this process (made on first use)."""
    service = _services.get(runtime)
    if service is None:
        service = HttpHostService(
            runtime, host if host is not None else runtime.host, runtime.credentials, agent_runner=agent_runner
        )
        _services[runtime] = service
    elif agent_runner is not None and service.agent_runner is None:
        service.agent_runner = agent_runner
    return service


def existing_service(runtime: Any) -> HttpHostService | None:
    """The runtime's service if one was made (nothing is created or imported for a host never enabled)."""
    return _services.get(runtime)
