"""MCP App views of a runtime: which tool has a view, one :class:`ViewSession` per shown view.

:class:`AppViews` (one per app) owns the view cache (:mod:`.resources`), the views' model context
(:mod:`.context`), their tool calls (:mod:`.view_calls`) and the streamed inputs (:class:`PartialInputs`).
:meth:`AppViews.attach` wires it into a runtime: MCP Apps advertised to allowed servers, the cache
dropped on ``resources/list_changed``, the context taken by the next prompt.

:class:`ViewSession` is a view's :class:`~.bridge.ViewPort`: its calls and reads stay on its own server; a
link must be http(s) and the user must agree (``confirm_link``); a message reaches the conversation only
through ``deliver_message``, which shows it to the user first. With no UI behind them, links and messages
are refused, never let through.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from desktop_app.runtime.apps.bridge import AppBridge, DisplayMode, Send, ViewRefused
from desktop_app.runtime.apps.context import AppContexts, context_text
from desktop_app.runtime.apps.meta import tool_ui
from desktop_app.runtime.apps.partial_json import recover_object
from desktop_app.runtime.apps.resources import AppResources
from desktop_app.runtime.apps.view_calls import Ask, CallLog, ViewCall, ViewCalls, result_json
from desktop_app.runtime.run.approvals import ApprovalPolicy, Decision, GrantStore

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev
    from desktop_app.runtime.host.host import Host
    from desktop_app.runtime.host.outcomes import CallOutcome

log = logging.getLogger(__name__)

MIN_HEIGHT, MAX_HEIGHT = 80, 900
"""Bounds of an inline view's height (pixels), whatever the view asks with ``size-changed``."""


async def _refuse_link(url: str) -> bool:
    return False


async def _refuse_message(text: str) -> bool:
    return False


@dataclass
class ViewSession:
    """One shown view: its server, the tool call it belongs to, and what the UI does for it."""

    views: AppViews
    conversation_id: str
    tool_call_id: str
    server: str
    tool: str
    resource_uri: str
    confirm_link: Callable[[str], Awaitable[bool]] = _refuse_link
    """Asks the user to open an http(s) link; ``True`` when opened."""
    deliver_message: Callable[[str], Awaitable[bool]] = _refuse_message
    """Shows a view's message to the user, who sends it (``True``) or not."""
    on_display_mode: Callable[[DisplayMode], DisplayMode] = lambda mode: "inline"
    on_size: Callable[[float | None, int], None] = lambda width, height: None
    on_context: Callable[[str], None] = lambda text: None
    logs: list[tuple[str, object]] = field(default_factory=list)
    bridge: AppBridge | None = None

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return await self.views.calls.call(self.conversation_id, self.tool_call_id, self.server, name, arguments)

    async def read_resource(self, uri: str) -> dict[str, Any]:
        try:
            return await self.views.host.read_resource_json(self.server, uri)
        except Exception as exc:
            raise ViewRefused(f"Could not read {uri} from MCP server '{self.server}': {exc}") from None

    async def open_link(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ViewRefused("Only http(s) links can be opened.")
        if not await self.confirm_link(url):
            raise ViewRefused("Link opening denied by user")

    async def send_message(self, text: str) -> None:
        if not await self.deliver_message(text):
            raise ViewRefused("Message sending denied by user")

    def update_model_context(self, content: list[dict[str, Any]], structured: dict[str, Any] | None) -> None:
        text = context_text(content, structured)
        self.views.contexts.update(self.conversation_id, self.tool_call_id, self.tool, text)
        self.on_context(text)

    def request_display_mode(self, mode: DisplayMode) -> DisplayMode:
        return self.on_display_mode(mode)

    def size_changed(self, width: float | None, height: float | None) -> None:
        if height is not None:
            self.on_size(width, int(min(MAX_HEIGHT, max(MIN_HEIGHT, height))))

    def log(self, level: str, data: object) -> None:
        self.logs.append((level, data))
        log.info("MCP App view of '%s/%s' [%s]: %s", self.server, self.tool, level, str(data)[:500])


class PartialInputs:
    """Streamed tool arguments by (run, model call id or index), recovered as objects for the views."""

    def __init__(self) -> None:
        self._text: dict[tuple[str, int], str] = {}
        self._names: dict[tuple[str, int], tuple[str, str]] = {}

    def add(self, event: ev.ToolInputDelta) -> tuple[str, str, dict[str, Any] | None]:
        """Take one delta; the call's (name, model call id, arguments so far)."""
        key = (event.run_id, event.index)
        self._text[key] = self._text.get(key, "") + event.arguments_delta
        self._names[key] = (event.name, event.model_call_id)
        return event.name, event.model_call_id, recover_object(self._text[key])

    def forget(self, run_id: str) -> None:
        for key in [k for k in self._text if k[0] == run_id]:
            self._text.pop(key, None)
            self._names.pop(key, None)


class AppViews:
    """The MCP App side of one runtime (see the module docstring)."""

    def __init__(
        self,
        host: Host,
        grants: GrantStore,
        policy: Callable[[str], ApprovalPolicy],
        *,
        ask: Ask | None = None,
        log: CallLog | None = None,
    ) -> None:
        self.host = host
        self.resources = AppResources(host)
        self.contexts = AppContexts()
        self.partials = PartialInputs()
        self.calls = ViewCalls(host, grants, policy, ask or _deny, log=log)
        self.sessions: dict[str, ViewSession] = {}

    def attach(self, runs: Any, allowed: Callable[[str], bool]) -> Callable[[], None]:
        """Wire into a runtime's ``runs`` (context for the next prompt) and this host (advertising to the
        ``allowed`` servers, cache invalidation). Returns the unsubscribe of the host listener."""
        runs.extra_context = self.contexts.take
        self.host.client_features.apps_enabled = allowed
        return self.host.subscribe(self.resources.on_host_event)

    def view_uri(self, server: str, tool: str, result_meta: dict[str, Any] | None = None) -> str | None:
        """The ``ui://`` view of ``server``'s ``tool`` (a result's own ``_meta.ui.resourceUri`` first)."""
        from_result = tool_ui(result_meta).resource_uri
        if from_result is not None:
            return from_result
        for known in self.host.tools(include_excluded=True, include_app_only=True):
            if known.server == server and known.tool == tool:
                return known.ui_resource_uri
        return None

    def open(
        self,
        conversation_id: str,
        tool_call_id: str,
        server: str,
        tool: str,
        resource_uri: str,
        send: Send,
        host_context: dict[str, Any],
    ) -> ViewSession:
        """A session for a view being shown, with its bridge (``send`` carries messages to the view)."""
        session = ViewSession(self, conversation_id, tool_call_id, server, tool, resource_uri)
        tool_info = next(
            (
                {"tool": {"name": t.tool, "description": t.description, "inputSchema": t.input_schema}}
                for t in self.host.tools(include_excluded=True, include_app_only=True)
                if t.server == server and t.tool == tool
            ),
            None,
        )
        context = dict(host_context)
        if tool_info is not None:
            context["toolInfo"] = tool_info
        session.bridge = AppBridge(
            send,
            session,
            context,
            host_capabilities={
                "openLinks": {},
                "serverTools": {},
                "serverResources": {},
                "logging": {},
                "updateModelContext": {"text": {}, "structuredContent": {}},
                "message": {"text": {}},
            },
        )
        self.sessions[tool_call_id] = session
        return session

    async def close(self, tool_call_id: str, reason: str) -> None:
        """Tear a view down (``ui/resource-teardown`` first) and forget it."""
        session = self.sessions.pop(tool_call_id, None)
        if session is not None and session.bridge is not None:
            await session.bridge.teardown(reason)


async def _deny(call: ViewCall) -> Decision:
    return Decision(False, "no one to ask: the app view's call needs an approval", "policy")


def outcome_result(outcome: CallOutcome) -> dict[str, Any]:
    """A tool result as ``ui/notifications/tool-result`` carries it."""
    return result_json(outcome)


def stored_result(
    text: str, structured: dict[str, Any] | None, meta: dict[str, Any] | None, is_error: bool
) -> dict[str, Any]:
    """A stored tool result (text, structured content, ``_meta``) as a view reads it, after a restart."""
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if structured is not None:
        result["structuredContent"] = structured
    if meta:
        result["_meta"] = meta
    if is_error:
        result["isError"] = True
    return result


__all__ = ["MAX_HEIGHT", "MIN_HEIGHT", "AppViews", "PartialInputs", "ViewSession", "outcome_result", "stored_result"]
