"""Who uses the served host, as data: the connected MCP clients and the tool calls they made.

:class:`ClientLog` holds the clients (name and version from ``initialize``, or from the request's
``_meta`` client info on 2026-07-28, which has no handshake; connected since; last activity; open or
ended) and the latest calls (tool, client, status, duration). Listeners are told ``"clients"`` or
``"calls"`` after each change, on the loop's thread (the UI redraws from the data, it keeps none).

:class:`RecordClients` is the ASGI middleware that sees every request: ``initialize`` (the session id the
SDK answers with), any later request of a session (its last activity), ``DELETE`` (the session ended).
The calls are recorded by the served host's ``tools/call`` handler (:mod:`.http_host`), which knows how
each one ended. A client is keyed by its ``Mcp-Session-Id``, else by its name and version.

A client with a session is "connected" until it ends it (``DELETE``) or the host stops. A 2026-07-28
client has no session and never says goodbye, so it is shown by its last activity instead
(:meth:`ClientLog.state`, :func:`activity`): "active" while it made a request in the last
:data:`IDLE_AFTER_S` seconds, "idle" after that.
"""

from __future__ import annotations

import contextvars
import itertools
import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from mcp_types import CLIENT_INFO_META_KEY

SESSION_HEADER = b"mcp-session-id"
MAX_CALLS = 200
MAX_CLIENTS = 50  # ended sessions beyond this are forgotten, oldest first
IDLE_AFTER_S = 300.0  # a client without a session that made no request for this long is shown idle
MAX_PARSED_BODY = 1 << 20  # a larger request is passed on untouched (tool calls with big arguments)

CallStatus = Literal["running", "ok", "error", "denied", "cancelled"]
Change = Literal["clients", "calls"]
ClientState = Literal["connected", "active", "idle", "gone"]

current_client: contextvars.ContextVar[str] = contextvars.ContextVar("served_client", default="an MCP client")
"""The label of the client whose tool call is being handled (for the approval question)."""
current_client_key: contextvars.ContextVar[str] = contextvars.ContextVar("served_client_key", default="")
"""The key of that client (its session id, else its label): what "Allow for this session" is remembered for,
so two clients with the same name do not share it."""


@dataclass
class ServedClient:
    key: str
    name: str = "unknown client"
    version: str = ""
    protocol: str = ""
    connected_at: float = 0.0
    last_seen: float = 0.0
    calls: int = 0
    open: bool = True
    sessionless: bool = False
    """No ``Mcp-Session-Id`` (2026-07-28): nothing ends it, only its last activity tells."""

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}".strip()


@dataclass
class ServedCall:
    id: int
    client: str
    client_label: str
    tool: str
    started_at: float
    status: CallStatus = "running"
    duration_s: float | None = None
    detail: str = ""


def client_label(info: Any) -> str:
    """``"name version"`` from a client-info object or dict (``"an MCP client"`` when it says nothing)."""
    if info is None:
        return "an MCP client"
    name = info.get("name") if isinstance(info, dict) else getattr(info, "name", None)
    version = info.get("version") if isinstance(info, dict) else getattr(info, "version", None)
    return f"{name or 'an MCP client'} {version or ''}".strip()


class ClientLog:
    """The served host's clients and their latest calls (see the module docstring)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.clients: dict[str, ServedClient] = {}
        self.calls: deque[ServedCall] = deque(maxlen=MAX_CALLS)
        self._listeners: list[Callable[[Change], None]] = []
        self._ids = itertools.count(1)

    def subscribe(self, listener: Callable[[Change], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self, what: Change) -> None:
        for listener in list(self._listeners):
            listener(what)

    def seen(self, key: str, info: Any = None, protocol: str = "", *, session: bool = True) -> ServedClient:
        """A request from client ``key`` (``info``: its client info, when this request carries it;
        ``session``: ``key`` is a session id, else a client without a session)."""
        now = self.clock()
        client = self.clients.get(key)
        if client is None:
            client = self.clients[key] = ServedClient(key, connected_at=now, sessionless=not session)
            ended = sorted((c for c in self.clients.values() if not c.open), key=lambda c: c.last_seen)
            for gone in ended[: max(0, len(self.clients) - MAX_CLIENTS)]:
                del self.clients[gone.key]
        if info is not None:
            name = info.get("name") if isinstance(info, dict) else getattr(info, "name", None)
            version = info.get("version") if isinstance(info, dict) else getattr(info, "version", None)
            client.name, client.version = str(name or client.name), str(version or client.version)
        client.protocol = protocol or client.protocol
        client.last_seen, client.open = now, True
        self._changed("clients")
        return client

    def state(self, client: ServedClient) -> ClientState:
        """``connected`` (an open session), ``active``/``idle`` (no session: by its last request), ``gone``."""
        if not client.open:
            return "gone"
        if not client.sessionless:
            return "connected"
        return "active" if self.clock() - client.last_seen < IDLE_AFTER_S else "idle"

    def ended(self, key: str) -> None:
        client = self.clients.get(key)
        if client is not None and client.open:
            client.open, client.last_seen = False, self.clock()
            self._changed("clients")

    def call_started(self, key: str, label: str, tool: str) -> ServedCall:
        client = self.clients.get(key) or self.seen(key, {"name": label}, session=key != label)
        client.calls += 1
        client.last_seen = self.clock()
        call = ServedCall(next(self._ids), key, client.label or label, tool, self.clock())
        self.calls.append(call)
        self._changed("clients")
        self._changed("calls")
        return call

    def call_finished(self, call: ServedCall, status: CallStatus, detail: str = "") -> None:
        call.status, call.detail = status, detail[:300]
        call.duration_s = max(0.0, self.clock() - call.started_at)
        self._changed("calls")

    def clear(self) -> None:
        """The host stopped: nobody is connected any more (the calls stay, as history)."""
        for client in self.clients.values():
            client.open = False
        self._changed("clients")


def activity(since_s: float) -> str:
    """``"active just now"``, ``"active 2 min ago"``, ``"active 3 h ago"``: a last request ``since_s`` ago."""
    if since_s < 60:
        return "active just now"
    if since_s < 3600:
        return f"active {int(since_s // 60)} min ago"
    if since_s < 86400:
        return f"active {int(since_s // 3600)} h ago"
    return f"active {int(since_s // 86400)} d ago"


def _header(scope: dict[str, Any], name: bytes) -> str:
    return next((v.decode("latin-1") for k, v in scope.get("headers", []) if k.lower() == name), "")


class RecordClients:
    """ASGI middleware: records each request's client in ``log`` and passes the request on unchanged."""

    def __init__(self, app: Any, log: ClientLog) -> None:
        self.app = app
        self.log = log

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        session = _header(scope, SESSION_HEADER)
        if scope.get("method") == "DELETE":
            await self.app(scope, receive, send)
            if session:
                self.log.ended(session)
            return
        if scope.get("method") != "POST":
            if session and session in self.log.clients:
                self.log.seen(session)
            await self.app(scope, receive, send)
            return
        messages: list[dict[str, Any]] = []
        body = b""
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body") or len(body) > MAX_PARSED_BODY:
                break
        replay = iter(messages)

        async def replayed() -> Any:
            return next(replay, None) or await receive()

        request = _parse(body) if len(body) <= MAX_PARSED_BODY else {}
        method = request.get("method")
        raw_params = request.get("params")
        params: dict[str, Any] = raw_params if isinstance(raw_params, dict) else {}
        if method == "initialize":
            info, protocol = params.get("clientInfo"), str(params.get("protocolVersion") or "")

            async def watched(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start" and message.get("status") == 200:
                    given = next((v.decode() for k, v in message.get("headers", []) if k.lower() == SESSION_HEADER), "")
                    self.log.seen(given or client_label(info), info, protocol, session=bool(given))
                await send(message)

            await self.app(scope, replayed, watched)
            return
        raw_meta = params.get("_meta")
        meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
        info = meta.get(CLIENT_INFO_META_KEY)
        if session:
            if session in self.log.clients:
                self.log.seen(session, info)
        elif info is not None:
            self.log.seen(client_label(info), info, _header(scope, b"mcp-protocol-version"), session=False)
        await self.app(scope, replayed, send)


def _parse(body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError):  # nested too deep: the SDK answers it with a JSON-RPC parse error (400)
        return {}
    return data if isinstance(data, dict) else {}


def client_key(ctx: Any) -> tuple[str, str]:
    """``(key, label)`` of the client behind a request context of the SDK (session id, else name+version)."""
    session = getattr(ctx, "session", None)
    params = getattr(session, "client_params", None)
    label = client_label(getattr(params, "client_info", None))
    headers = getattr(getattr(ctx, "request", None), "headers", None)
    given = headers.get("mcp-session-id", "") if headers is not None else ""
    return (given or label), label
