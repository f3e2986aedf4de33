"""The host end of one MCP App view's JSON-RPC (SEP-1865), Qt-free.

:class:`AppBridge` takes the view's messages (:meth:`AppBridge.receive`, a parsed JSON-RPC object) and sends
its own through ``send`` (the UI's transport: a web channel, or a test's fake view). It answers
``ui/initialize`` with the host context, holds every host→view message until ``ui/notifications/initialized``
(the spec forbids sending earlier), delivers ``tool-input-partial`` (only the latest, never after
``tool-input``), ``tool-input``, ``tool-result`` and ``tool-cancelled``, and passes each view request to its
:class:`ViewPort` — the one place that decides what a view may do (calls through the approval policy, reads
of its own server only, links and messages the user sees first). :meth:`AppBridge.teardown` asks the view
with ``ui/resource-teardown`` and waits (bounded) for its answer. ``traffic`` lists every method in order,
with its direction, for the log and for tests.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol

from desktop_app.runtime.apps.meta import PROTOCOL_VERSION

log = logging.getLogger(__name__)

DisplayMode = Literal["inline", "fullscreen", "pip"]
DISPLAY_MODES: tuple[DisplayMode, ...] = ("inline", "fullscreen", "pip")
TEARDOWN_TIMEOUT = 2.0
"""Seconds a view gets to answer ``ui/resource-teardown`` before it is removed anyway."""

METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
REFUSED = -32000


class ViewRefused(Exception):
    """A view's request is refused; the message goes back to the view as the JSON-RPC error."""


class ViewPort(Protocol):
    """What a view may ask of the host. Each method may raise :class:`ViewRefused`."""

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]: ...

    async def read_resource(self, uri: str) -> dict[str, Any]: ...

    async def open_link(self, url: str) -> None: ...

    async def send_message(self, text: str) -> None: ...

    def update_model_context(self, content: list[dict[str, Any]], structured: dict[str, Any] | None) -> None: ...

    def request_display_mode(self, mode: DisplayMode) -> DisplayMode: ...

    def size_changed(self, width: float | None, height: float | None) -> None: ...

    def log(self, level: str, data: object) -> None: ...


Send = Callable[[dict[str, Any]], None]


class AppBridge:
    """One view's JSON-RPC with the host (see the module docstring)."""

    def __init__(
        self,
        send: Send,
        port: ViewPort,
        host_context: Mapping[str, Any],
        *,
        host_info: Mapping[str, str] | None = None,
        host_capabilities: Mapping[str, Any] | None = None,
    ) -> None:
        self._send = send
        self._port = port
        self.host_context: dict[str, Any] = dict(host_context)
        self._host_info = dict(host_info or {"name": "Switchboard", "version": "1"})
        self._capabilities = dict(host_capabilities or {})
        self.initialized = False
        self.app_capabilities: dict[str, Any] = {}
        self._held: list[dict[str, Any]] = []  # host -> view messages before `initialized`
        self._partial: dict[str, Any] | None = None  # the latest held partial input
        self._input_sent = False
        self._closed = False
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.traffic: list[tuple[Literal["in", "out"], str]] = []

    # -- host -> view -------------------------------------------------------------------------------

    def _out(self, message: dict[str, Any]) -> None:
        if self._closed:
            return
        self.traffic.append(("out", str(message.get("method", "response"))))
        self._send(message)

    def _notify(self, method: str, params: Mapping[str, Any]) -> None:
        message = {"jsonrpc": "2.0", "method": method, "params": dict(params)}
        if self.initialized:
            self._out(message)
        else:
            self._held.append(message)

    def tool_input_partial(self, arguments: dict[str, Any]) -> None:
        """The arguments so far while the model writes them; dropped once the whole input was sent."""
        if self._input_sent:
            return
        if self.initialized:
            self._out(
                {"jsonrpc": "2.0", "method": "ui/notifications/tool-input-partial", "params": {"arguments": arguments}}
            )
        else:
            self._partial = arguments

    def tool_input(self, arguments: dict[str, Any]) -> None:
        if self._input_sent:
            return
        self._input_sent = True
        self._partial = None
        self._notify("ui/notifications/tool-input", {"arguments": arguments})

    def tool_result(self, result: Mapping[str, Any]) -> None:
        """``result`` is an MCP ``CallToolResult`` (``content``, ``structuredContent``, ``_meta``, ``isError``)."""
        self._notify("ui/notifications/tool-result", result)

    def tool_cancelled(self, reason: str) -> None:
        self._notify("ui/notifications/tool-cancelled", {"reason": reason})

    def host_context_changed(self, changes: Mapping[str, Any]) -> None:
        """Merge ``changes`` into the host context and tell the view (theme, display mode, size…)."""
        changed = {k: v for k, v in changes.items() if self.host_context.get(k) != v}
        if not changed:
            return
        self.host_context.update(changed)
        if self.initialized:  # a view that is not initialized yet gets the whole context with its answer
            self._out({"jsonrpc": "2.0", "method": "ui/notifications/host-context-changed", "params": changed})

    async def teardown(self, reason: str, wait: float = TEARDOWN_TIMEOUT) -> bool:
        """Ask the view to wind down (``ui/resource-teardown``); ``True`` when it answered in time.
        The bridge is closed afterwards: nothing more goes to the view and its requests are dropped."""
        answered = False
        if self.initialized and not self._closed:
            request_id = next(self._ids)
            future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            self._waiting[request_id] = future
            self._out(
                {"jsonrpc": "2.0", "id": request_id, "method": "ui/resource-teardown", "params": {"reason": reason}}
            )
            try:
                await asyncio.wait_for(future, wait)
                answered = True
            except TimeoutError:
                log.info("an MCP App view did not answer ui/resource-teardown within %g s", wait)
            finally:
                self._waiting.pop(request_id, None)
        self.close()
        return answered

    def close(self) -> None:
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        for future in self._waiting.values():
            if not future.done():
                future.cancel()

    @property
    def closed(self) -> bool:
        return self._closed

    # -- view -> host -------------------------------------------------------------------------------

    def receive(self, message: object) -> None:
        """One message from the view. Requests are answered asynchronously (on the running loop)."""
        if self._closed or not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return
        method = message.get("method")
        if not isinstance(method, str):
            self._response(message)
            return
        self.traffic.append(("in", method))
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if "id" in message:
            task = asyncio.get_running_loop().create_task(self._answer(message["id"], method, params))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        else:
            self._notification(method, params)

    def _response(self, message: dict[str, Any]) -> None:
        future = self._waiting.get(message.get("id"))  # type: ignore[arg-type]
        if future is not None and not future.done():
            future.set_result(message)

    def _notification(self, method: str, params: dict[str, Any]) -> None:
        if method == "ui/notifications/initialized":
            if self.initialized:
                return
            self.initialized = True
            held, self._held = self._held, []
            if self._partial is not None and not self._input_sent:
                self.tool_input_partial(self._partial)
                self._partial = None
            for message in held:
                self._out(message)
        elif method == "ui/notifications/size-changed":
            width, height = params.get("width"), params.get("height")
            self._port.size_changed(
                float(width) if isinstance(width, int | float) else None,
                float(height) if isinstance(height, int | float) else None,
            )
        elif method == "notifications/message":
            self._port.log(str(params.get("level", "info")), params.get("data"))
        else:
            log.debug("MCP App view sent an unknown notification %s", method)

    async def _answer(self, request_id: object, method: str, params: dict[str, Any]) -> None:
        try:
            result = await self._dispatch(method, params)
        except ViewRefused as exc:
            self._out({"jsonrpc": "2.0", "id": request_id, "error": {"code": REFUSED, "message": str(exc)}})
            return
        except _MethodNotFound:
            error = {"code": METHOD_NOT_FOUND, "message": f"Method not found: {method}"}
            self._out({"jsonrpc": "2.0", "id": request_id, "error": error})
            return
        except _InvalidParams as exc:
            self._out({"jsonrpc": "2.0", "id": request_id, "error": {"code": INVALID_PARAMS, "message": str(exc)}})
            return
        self._out({"jsonrpc": "2.0", "id": request_id, "result": result})

    async def _dispatch(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        port = self._port
        if method == "ui/initialize":
            capabilities = params.get("appCapabilities")
            self.app_capabilities = capabilities if isinstance(capabilities, dict) else {}
            return {
                "protocolVersion": PROTOCOL_VERSION,
                "hostInfo": self._host_info,
                "hostCapabilities": self._capabilities,
                "hostContext": self.host_context,
            }
        if method == "ping":
            return {}
        if method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments") or {}
            if not isinstance(name, str) or not isinstance(arguments, dict):
                raise _InvalidParams("tools/call needs a tool name and an arguments object")
            return await port.call_tool(name, arguments)
        if method == "resources/read":
            uri = params.get("uri")
            if not isinstance(uri, str):
                raise _InvalidParams("resources/read needs a uri")
            return await port.read_resource(uri)
        if method == "ui/open-link":
            url = params.get("url")
            if not isinstance(url, str):
                raise _InvalidParams("ui/open-link needs a url")
            await port.open_link(url)
            return {}
        if method == "ui/message":
            return await self._message(params)
        if method == "ui/update-model-context":
            content = params.get("content") or []
            structured = params.get("structuredContent")
            if not isinstance(content, list) or (structured is not None and not isinstance(structured, dict)):
                raise _InvalidParams("ui/update-model-context takes content blocks and a structuredContent object")
            port.update_model_context([c for c in content if isinstance(c, dict)], structured)
            return {}
        if method == "ui/request-display-mode":
            mode = params.get("mode")
            if mode not in DISPLAY_MODES:
                raise _InvalidParams("mode must be inline, fullscreen or pip")
            declared = self.app_capabilities.get("availableDisplayModes")
            current: DisplayMode = self.host_context.get("displayMode", "inline")
            if isinstance(declared, list) and mode not in declared:
                return {"mode": current}
            result = port.request_display_mode(mode)
            self.host_context_changed({"displayMode": result})
            return {"mode": result}
        raise _MethodNotFound

    async def _message(self, params: dict[str, Any]) -> dict[str, Any]:
        content = params.get("content")
        blocks = content if isinstance(content, list) else [content]
        texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        text = "\n".join(t for t in texts if isinstance(t, str) and t)
        if params.get("role", "user") != "user" or not text:
            raise _InvalidParams("ui/message takes a user message with text content")
        await self._port.send_message(text)
        return {}


class _MethodNotFound(Exception):
    pass


class _InvalidParams(Exception):
    pass


__all__ = ["DISPLAY_MODES", "AppBridge", "DisplayMode", "Send", "ViewPort", "ViewRefused"]
