"""MCP App views in the window: the runtime's events to the views, the views' questions to the user.

:class:`AppsController` (one per window, :func:`attach_apps`) owns the runtime side (:class:`AppViews`) and
the frames. A tool whose view is allowed (Settings → Apps) gets an :class:`~.frame.AppFrame` in its card: from
the model's first argument fragment (``tool-input-partial`` while the model writes; the frame joins its card
when the call is made), else at the call or at the result. The result (or a cancellation) goes to the view;
a view's call, link or message waits for the user in the frame; what it tells the model shows there too.
After a restart a reopened conversation shows its views again from the stored input and result, without
running anything; a view whose server is gone leaves the text with a note. A theme switch reaches every
view as ``host-context-changed``. WebEngine is imported with the first view shown, never before.
"""

from __future__ import annotations

import logging
import weakref
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QLocale, QObject, QTimer, QTimeZone, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QWidget

from desktop_app.runtime import events as ev
from desktop_app.runtime.apps.bridge import DisplayMode
from desktop_app.runtime.apps.known import KnownViews
from desktop_app.runtime.apps.resources import AppResourceError
from desktop_app.runtime.apps.session import MAX_HEIGHT, AppViews, ViewSession, stored_result
from desktop_app.runtime.apps.view_calls import ViewCall, result_json
from desktop_app.runtime.host.outcomes import CallOutcome
from desktop_app.runtime.run.approvals import Decision
from desktop_app.ui.apps import engine
from desktop_app.ui.apps.frame import AppFrame

log = logging.getLogger(__name__)

GONE_NOTE = "This tool's app view cannot be shown: MCP server '{server}' is not available. Its text result is shown."


def current_theme() -> str:
    palette = QGuiApplication.palette()
    return "dark" if palette.window().color().lightness() < 128 else "light"


class AppsController(QObject):
    """See the module docstring."""

    def __init__(
        self, window: Any, runtime: Any, host: Any, store: Any = None, known: KnownViews | None = None
    ) -> None:
        super().__init__(window)
        self.known = known or KnownViews()
        self.engine_available = engine.available()
        if not self.engine_available:
            log.info("Qt WebEngine is not installed: MCP App views are off (tools show their text results)")
        self.window, self.runtime, self.host, self.store = window, runtime, host, store
        self.views = AppViews(host, runtime.grants, runtime.routing.run_policy, ask=self._ask_call, log=store)
        self._detach = self.views.attach(runtime.runs, self.allowed)
        self.views.calls.listeners.append(self._on_view_call)
        self.frames: dict[str, AppFrame] = {}
        self.early: dict[tuple[str, int], AppFrame] = {}  # frames opened from argument fragments
        self.gone: set[str] = set()  # cards already told that their view's server is gone
        self.open_url: Any = QDesktopServices.openUrl
        self._theme = current_theme()
        self._unsubscribe = runtime.subscribe(self._on_event)
        self._unsubscribe_host = host.subscribe(self._on_host_event)
        window.installEventFilter(self)  # the window gets PaletteChange when the theme switches
        _watch_quit(self)
        if hasattr(window.view, "transcript_loaded"):
            window.view.transcript_loaded.connect(self.restore)

    def allowed(self, server: str) -> bool:
        """Views of ``server`` are shown (and MCP Apps advertised to it): Settings → Apps allows it and this
        installation has Qt WebEngine."""
        return self.engine_available and bool(self.runtime.settings.apps.allows(server))

    def close(self) -> None:
        """Stop following the runtime and destroy every web view now (a page must not outlive the profile)."""
        self._unsubscribe()
        self._unsubscribe_host()
        self._detach()
        self.release_views()

    def release_views(self) -> None:
        frames = [f for f in [*self.frames.values(), *self.early.values()] if shiboken6.isValid(f)]
        for frame in frames:
            if frame.web is not None:
                frame.remove_view("View closed: the window closed.")
        if frames:
            QCoreApplication.sendPostedEvents(None, int(QEvent.Type.DeferredDelete))

    def _on_host_event(self, event: Any) -> None:
        if event.kind == "server_state" and event.state == "ready":  # its views in a reopened conversation
            QTimer.singleShot(0, self.restore)

    # -- the runtime's events ------------------------------------------------------------------------

    def _conversation(self) -> str | None:
        controller = self.window.controller
        return None if controller is None else str(controller.conversation_id)

    def _on_event(self, event: ev.Event) -> None:
        if event.conversation_id != self._conversation():
            return
        try:
            if isinstance(event, ev.ToolInputDelta):
                self._on_delta(event)
            elif isinstance(event, ev.ToolCall):
                self._on_call(event)
            elif isinstance(event, ev.ToolResult):
                self._on_result(event)
            elif isinstance(event, ev.RunFinished | ev.Error):
                self._on_run_end(event.run_id)
        except Exception:  # a view must never break the chat
            log.exception("MCP App view: handling %s failed", event.kind)

    def _view_of(self, server: str, tool: str, meta: dict[str, Any] | None = None) -> str | None:
        if not self.allowed(server):
            return None
        return self.views.view_uri(server, tool, meta)

    def _on_delta(self, event: ev.ToolInputDelta) -> None:
        key = (event.run_id, event.index)
        name, _model_id, arguments = self.views.partials.add(event)
        frame = self.early.get(key)
        if frame is None:
            target = self.host.lookup(name) if name else None
            uri = self._view_of(target.server, target.tool) if target is not None else None
            if target is None or uri is None:
                return
            frame = self._new_frame(f"pending:{event.run_id}:{event.index}", target.server, target.tool, uri)
            frame.model_call_id = event.model_call_id
            self.window.view.add_block(frame)
            self.early[key] = frame
        if arguments is not None:
            frame.pending_partial = arguments
            self._deliver(frame)

    def _on_call(self, event: ev.ToolCall) -> None:
        card = self.window.view.cards.get(event.tool_call_id)
        frame = next(
            (f for k, f in self.early.items() if k[0] == event.run_id and f.model_call_id == event.model_call_id),
            None,
        )
        if frame is not None:
            self.early = {k: f for k, f in self.early.items() if f is not frame}
            frame.tool_call_id = event.tool_call_id
            if frame.session is not None:
                self.views.sessions.pop(frame.session.tool_call_id, None)
                frame.session.tool_call_id = event.tool_call_id
                self.views.sessions[event.tool_call_id] = frame.session
        else:
            uri = self._view_of(event.server, event.tool)
            if uri is None:
                return
            frame = self._new_frame(event.tool_call_id, event.server, event.tool, uri)
        self.frames[event.tool_call_id] = frame
        if card is not None:
            self._into_card(card, frame)
        frame.pending_input = event.arguments
        if frame.session is not None and frame.session.bridge is not None:
            frame.session.bridge.tool_input(event.arguments)

    def _on_result(self, event: ev.ToolResult) -> None:
        frame = self.frames.get(event.tool_call_id)
        if frame is None:
            uri = self._view_of(event.server, event.tool, event.meta)
            card = self.window.view.cards.get(event.tool_call_id)
            if uri is None or card is None or event.is_error:
                return
            frame = self._new_frame(event.tool_call_id, event.server, event.tool, uri)
            self.frames[event.tool_call_id] = frame
            self._into_card(card, frame)
        outcome = CallOutcome(
            text=event.text,
            is_error=event.is_error,
            structured=event.structured,
            meta=event.meta,
            content=[{"type": "text", "text": event.text}, *event.media],
        )
        if event.is_error and event.text.startswith("Cancelled"):
            frame.pending_cancel = event.text
        else:
            frame.pending_result = result_json(outcome)
        self._deliver(frame)

    def _on_run_end(self, run_id: str) -> None:
        self.views.partials.forget(run_id)
        for key in [k for k in self.early if k[0] == run_id]:  # fragments of a call that never came
            frame = self.early.pop(key)
            self.window.tasks.start(self._close(frame, "the model did not make this call"), name="app-view-close")

    # -- frames ---------------------------------------------------------------------------------------

    def _new_frame(self, tool_call_id: str, server: str, tool: str, uri: str) -> AppFrame:
        frame = AppFrame(tool, server)
        frame.window_root = self.window
        frame.tool_call_id = tool_call_id
        frame.close_requested.connect(lambda: self.window.tasks.start(self._close(frame), name="app-view-close"))
        frame.mode_requested.connect(lambda mode: self._set_mode(frame, mode))
        self.window.tasks.start(self._open(frame, server, tool, uri), name="app-view-open")
        return frame

    def _into_card(self, card: QWidget, frame: AppFrame) -> None:
        box = card.layout()
        if box is None:
            return
        result = getattr(card, "result", None)
        index = box.indexOf(result) if isinstance(result, QWidget) else -1
        box.insertWidget(index + 1 if index >= 0 else box.count(), frame)  # type: ignore[attr-defined]
        frame.show()

    def host_context(self, frame: AppFrame) -> dict[str, Any]:
        width = max(200, self.window.view.width() - 60) if hasattr(self.window, "view") else 600
        return {
            "theme": self._theme,
            "locale": QLocale().bcp47Name() or "en",
            "timeZone": bytes(QTimeZone.systemTimeZoneId().data()).decode() or "UTC",
            "displayMode": frame.mode,
            "availableDisplayModes": ["inline", "fullscreen", "pip"],
            "containerDimensions": {"width": width, "maxHeight": MAX_HEIGHT},
            "platform": "desktop",
            "userAgent": "Switchboard",
            "deviceCapabilities": {"touch": False, "hover": True},
        }

    async def _open(self, frame: AppFrame, server: str, tool: str, uri: str) -> None:
        try:
            resource = await self.views.resources.get(server, uri)
        except AppResourceError as exc:
            frame.show_note(str(exc))
            return
        self.known.remember(server, tool, uri)
        conversation = self._conversation() or ""
        session = self.views.open(
            conversation, frame.tool_call_id, server, tool, uri, frame.send, self.host_context(frame)
        )
        self._wire(frame, session)
        frame.show_view(resource, session, scroll_target=self._scroll_target)
        self._deliver(frame)

    def _wire(self, frame: AppFrame, session: ViewSession) -> None:
        session.on_size = lambda _w, height: frame.set_view_height(height)
        session.on_display_mode = lambda mode: self._set_mode(frame, mode)
        session.on_context = frame.show_context

        async def confirm_link(url: str) -> bool:
            row = frame.ask(f"The app wants to open this link in your browser:\n{url}", "Open", "Cancel")
            if await row.answer:
                self.open_url(QUrl(url))
                return True
            return False

        async def deliver_message(text: str) -> bool:
            row = frame.ask(f"The app wants to send this message for you:\n{text}", "Send", "Discard")
            if not await row.answer:
                return False
            controller = self.window.controller
            if controller is not None and not getattr(controller, "busy", False):
                self.window._on_submitted(text)
            else:  # a run is going on: the message waits in the composer
                self.window.composer.set_text(text)
            return True

        session.confirm_link = confirm_link
        session.deliver_message = deliver_message

    def _deliver(self, frame: AppFrame) -> None:
        """What the view is owed so far (the bridge holds it until the view is initialized)."""
        session = frame.session
        if session is None or session.bridge is None:
            return
        bridge = session.bridge
        if frame.pending_partial is not None:
            bridge.tool_input_partial(frame.pending_partial)  # held until initialized; never after the input
            frame.pending_partial = None
        if frame.pending_input is not None:
            bridge.tool_input(frame.pending_input)
        if frame.pending_result is not None:
            bridge.tool_result(frame.pending_result)
            frame.pending_result = None
        if frame.pending_cancel is not None:
            bridge.tool_cancelled(frame.pending_cancel)
            frame.pending_cancel = None

    def _on_view_call(self, call: ViewCall) -> None:
        frame = self.frames.get(call.parent_tool_call_id)
        if frame is None or not shiboken6.isValid(frame):
            return
        state = {
            "deciding": "waiting for approval",
            "running": "running…",
            "denied": "denied",
            "done": "failed" if call.outcome is not None and call.outcome.is_error else "done",
        }[call.state]
        frame.show_call(call.id, f"Called by the view: {call.tool} · {state}")

    async def _ask_call(self, call: ViewCall) -> Decision:
        frame = self.frames.get(call.parent_tool_call_id)
        if frame is None:
            return Decision(False, "the view that asked is gone", "policy")
        shown = ", ".join(f"{k}={v!r}" for k, v in call.arguments.items())[:300]
        row = frame.ask(f"The app view wants to call {call.tool}({shown}) on {call.server}.", "Allow", "Deny")
        row.setObjectName("appViewApproval")
        self.window.set_status(f"The app view of {frame.tool} asks to call {call.tool}")
        approved = await row.answer
        return Decision(approved, None if approved else "denied in the app view", "user")

    def _set_mode(self, frame: AppFrame, mode: str) -> DisplayMode:
        wanted: DisplayMode = mode if mode in ("inline", "fullscreen", "pip") else "inline"  # type: ignore[assignment]
        result = frame.set_mode(wanted)
        if frame.session is not None and frame.session.bridge is not None:
            frame.session.bridge.host_context_changed({"displayMode": result})
        return result

    async def _close(self, frame: AppFrame, reason: str = "closed by the user") -> None:
        session = frame.session
        if session is not None:
            await self.views.close(session.tool_call_id, reason)
        frame.remove_view(
            "View closed. The text result is above." if reason == "closed by the user" else f"View closed: {reason}."
        )
        self.frames = {k: f for k, f in self.frames.items() if f is not frame}

    def _scroll_target(self) -> QWidget | None:
        view = getattr(self.window, "view", None)
        viewport = getattr(view, "viewport", None)
        return viewport() if callable(viewport) else None

    # -- theme ----------------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.PaletteChange and watched is self.window:
            theme = current_theme()
            if theme != self._theme:
                self._theme = theme
                for session in list(self.views.sessions.values()):
                    if session.bridge is not None:
                        session.bridge.host_context_changed({"theme": theme})
        return False

    # -- a reopened conversation ----------------------------------------------------------------------

    def restore(self) -> None:
        """Views of the shown conversation's stored calls, from their stored input and result."""
        conversation = self._conversation()
        if self.store is None or conversation is None or not self.runtime.settings.apps.enabled:
            return
        calls: dict[str, dict[str, Any]] = {}
        results: dict[str, tuple[str, dict[str, Any]]] = {}
        for message in self.store.messages(conversation):
            for part in message.parts:
                if part.kind == "tool_call" and part.tool_call_id:
                    calls[part.tool_call_id] = part.payload or {}
                elif part.kind == "tool_result" and part.tool_call_id:
                    results[part.tool_call_id] = (part.text, part.payload or {})
        for tool_call_id, card in list(self.window.view.cards.items()):
            if tool_call_id in self.frames or tool_call_id not in results:
                continue
            text, payload = results[tool_call_id]
            call = calls.get(tool_call_id, {})
            server, tool = str(payload.get("server") or call.get("server") or ""), str(payload.get("tool") or "")
            meta = payload.get("meta") if isinstance(payload.get("meta"), dict) else None
            if payload.get("is_error") or not server or not self.allowed(server):
                continue
            uri = self.views.view_uri(server, tool, meta)
            if uri is None:
                state = self.host.states().get(server)
                gone = state is None or state.state in ("failed", "disabled", "stopped")
                if gone and self.known.view(server, tool) is not None and tool_call_id not in self.gone:
                    self.gone.add(tool_call_id)
                    card.show_note(GONE_NOTE.format(server=server))
                continue
            frame = self._new_frame(tool_call_id, server, tool, uri)
            self.frames[tool_call_id] = frame
            self._into_card(card, frame)
            frame.pending_input = call.get("arguments") if isinstance(call.get("arguments"), dict) else {}
            frame.pending_result = stored_result(text, payload.get("structured"), meta, False)


_LIVE: weakref.WeakSet[AppsController] = weakref.WeakSet()
_quit_hooked: list[QCoreApplication] = []


def _watch_quit(controller: AppsController) -> None:
    """Every view is destroyed before Qt WebEngine shuts down with the application (a page left alive then
    crashes the process). One module-level slot for all controllers: a slot bound to a controller would
    outlive it."""
    _LIVE.add(controller)
    app = QCoreApplication.instance()
    if app is not None and not any(hooked is app for hooked in _quit_hooked):
        app.aboutToQuit.connect(_release_all)
        _quit_hooked.append(app)


def _release_all() -> None:
    for controller in list(_LIVE):
        if shiboken6.isValid(controller):
            controller.release_views()


def attach_apps(
    window: Any, runtime: Any, host: Any, store: Any = None, known: KnownViews | None = None
) -> AppsController | None:
    """MCP App views for ``window`` (``None`` when the runtime has no host to read views from)."""
    if not hasattr(host, "read_resource_json") or not hasattr(runtime, "runs"):
        return None
    controller = AppsController(window, runtime, host, store, known)
    window.apps = controller
    return controller


__all__ = ["AppsController", "attach_apps", "current_theme"]
