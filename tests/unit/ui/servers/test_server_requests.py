"""Servers' requests in the chat: the sampling card and the elicitation form (and link), answered by id.

Unit tests drive the cards with host events and a recording answerer; the end-to-end tests run the real
Runtime and Host with an in-process built-in server whose read-only tools ask for sampling and elicitation.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import mcp_types as mtypes
import pytest
from mcp.server.mcpserver import Elicit as ElicitRequest
from mcp.server.mcpserver import ElicitationResult, MCPServer, Resolve, Sample
from pydantic import BaseModel, Field
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QSpinBox

from desktop_app.runtime import events as ev
from desktop_app.runtime.errors import InvalidElicitationResponseError, UnknownServerRequestError
from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.chat.view import ChatView
from desktop_app.ui.servers.requests import ElicitationCard, SamplingCard, ServerRequests
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeProvider, answer, calls, only_card

READ_ONLY = mtypes.ToolAnnotations(readOnlyHint=True)  # built-in + read-only: the tool itself never asks


class Answerer:
    """Records answers; ``refuse`` makes the next elicitation answer fail like the runtime's schema check."""

    def __init__(self) -> None:
        self.sampling: list[tuple[str, bool, str | None]] = []
        self.elicitation: list[tuple[str, str, Any]] = []
        self.refuse: Exception | None = None

    def answer_sampling(self, request_id: str, approved: bool, reason: str | None = None) -> None:
        self.sampling.append((request_id, approved, reason))

    def answer_elicitation(self, request_id: str, action: str, content: Any = None) -> None:
        if self.refuse is not None:
            error, self.refuse = self.refuse, None
            raise error
        self.elicitation.append((request_id, action, content))


@pytest.fixture
def requests(qtbot) -> tuple[ServerRequests, ChatView, Answerer]:
    view = ChatView()
    qtbot.addWidget(view)
    handler = ServerRequests(view)
    answerer = Answerer()
    handler.answerer = answerer
    return handler, view, answerer


def sampling_event(request_id: str = "s1", text: str = "ping?", count: int = 1) -> ev.SamplingRequested:
    messages = [ev.SamplingMessageText(role="user", text=f"{text} {i}") for i in range(count)]
    return ev.SamplingRequested(
        server="x", request_id=request_id, messages=messages, system_prompt="be brief", max_tokens=50
    )


def test_sampling_card_shows_the_request_and_allows(requests) -> None:
    handler, view, answerer = requests
    handler.on_event(sampling_event())
    card = handler.cards["s1"]
    assert isinstance(card, SamplingCard) and card in view.blocks()
    assert "MCP server 'x' wants to use your model" in card.title.text()
    assert "ping? 0" in card.full.text() and card.show_all is None
    assert "be brief" in card.findChild(QObject, "samplingSystem").text()
    assert "Max tokens: 50" in card.findChild(QObject, "samplingLimits").text()
    card.allow_button.click()
    assert answerer.sampling == [("s1", True, None)]
    assert card.status.text().startswith("Allowed") and card.controls.isHidden()
    handler.on_event(ev.ServerRequestClosed(server="x", request_id="s1", outcome="answered"))
    assert card.status.text().startswith("Allowed")


def test_sampling_deny_with_a_reason_and_long_messages_collapse(requests) -> None:
    handler, _view, answerer = requests
    handler.on_event(sampling_event(text="x" * 300, count=5))
    card = handler.cards["s1"]
    assert card.show_all is not None and card.full.isHidden() and not card.preview.isHidden()
    card.show_all.click()
    assert not card.full.isHidden() and card.preview.isHidden()
    card.deny_button.click()
    assert not card.reason.isHidden() and card.allow_button.isHidden()
    card.reason.setText("not now")
    card.deny_button.click()
    assert answerer.sampling == [("s1", False, "not now")]
    assert card.status.text() == "Denied: not now"


def test_a_sampling_card_keeps_the_request_cards_fold_arrow(requests) -> None:
    """Its "Show all messages" button is its own (it replaced the header's fold arrow: folding raised)."""
    handler, _view, _answerer = requests
    handler.on_event(sampling_event())
    card = handler.cards["s1"]
    card.collapse()
    assert not card.expanded and card.content_box.isHidden() and not card.toggle.isHidden()
    card.toggle.click()
    assert card.expanded and not card.content_box.isHidden()


def test_a_request_the_server_stops_waiting_for_is_disarmed(requests) -> None:
    handler, view, answerer = requests
    handler.on_event(sampling_event())
    handler.on_event(ev.ServerRequestClosed(server="x", request_id="s1", outcome="cancelled"))
    card = handler.cards["s1"]
    assert not card.is_open and card.controls.isHidden()
    assert "The server stopped waiting" in card.status.text()
    handler.on_event(sampling_event("s2"))
    answerer.answer_sampling = _raise(UnknownServerRequestError("gone"))  # type: ignore[method-assign]
    handler.cards["s2"].allow_button.click()
    assert "no longer waits" in handler.cards["s2"].status.text()
    view.clear()  # settled cards go with the conversation
    assert handler.cards["s1"] not in view.blocks()


def _raise(exc: Exception) -> Any:
    def answer(*_args: Any, **_kwargs: Any) -> None:
        raise exc

    return answer


SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "description": "As on your badge"},
        "email": {"type": "string", "format": "email"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "score": {"type": "number", "default": 2.5},
        "subscribe": {"type": "boolean", "default": True},
        "color": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"], "default": "g"},
        "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
        "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "default": ["b"]},
    },
    "required": ["name", "age"],
}


def test_elicitation_form_from_the_schema(requests) -> None:
    handler, _view, answerer = requests
    handler.on_event(ev.ElicitationRequested(server="x", request_id="e1", message="Who?", requested_schema=SCHEMA))
    card = handler.cards["e1"]
    assert isinstance(card, ElicitationCard)
    name, email, age = card.field("name"), card.field("email"), card.field("age")
    assert isinstance(name.widget, QLineEdit) and "Your name" in name.label.text() and "*" in name.label.text()
    assert card.findChild(QObject, "help_name").text() == "As on your badge"
    assert isinstance(email.widget, QLineEdit) and email.widget.placeholderText() == "name@example.com"
    assert "*" not in email.label.text()
    assert isinstance(age.widget, QSpinBox) and age.widget.maximum() == 150 and age.widget.text() == "—"
    assert isinstance(card.field("subscribe").widget, QCheckBox) and card.field("subscribe").widget.isChecked()
    color = card.field("color").widget
    assert isinstance(color, QComboBox) and color.currentText() == "Green"
    size = card.field("size").widget
    assert isinstance(size, QComboBox) and [size.itemText(i) for i in range(size.count())] == ["—", "Small", "Large"]
    # Unset optional fields stay out; the defaults are in.
    assert card.values() == {"score": 2.5, "subscribe": True, "color": "g", "tags": ["b"]}

    answerer.refuse = InvalidElicitationResponseError("The answer does not match: 'name' is a required property.")
    card.accept_button.click()
    assert card.is_open and not card.error.isHidden() and "'name' is a required property" in card.error.text()
    assert card.controls.isEnabled()

    name.widget.setText("Ada")
    age.widget.setValue(36)
    size.setCurrentIndex(2)
    card.accept_button.click()
    [(request_id, action, content)] = answerer.elicitation
    assert (request_id, action) == ("e1", "accept")
    expected = {"name": "Ada", "age": 36, "score": 2.5, "subscribe": True, "color": "g", "size": "l", "tags": ["b"]}
    assert content == expected
    assert not card.is_open and card.status.text().startswith("Accepted")


def test_elicitation_decline_and_cancel(requests) -> None:
    handler, _view, answerer = requests
    for request_id in ("e1", "e2"):
        handler.on_event(ev.ElicitationRequested(server="x", request_id=request_id, message="?", requested_schema={}))
    handler.cards["e1"].decline_button.click()
    handler.cards["e2"].cancel_button.click()
    assert answerer.elicitation == [("e1", "decline", None), ("e2", "cancel", None)]
    assert handler.cards["e1"].status.text().startswith("Declined")


class UrlCatcher(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    @Slot(QUrl)
    def handle(self, url: QUrl) -> None:
        self.urls.append(url.toString())


def test_url_elicitation_opens_the_browser_then_accepts(requests) -> None:
    handler, _view, answerer = requests
    url = "https://example.com/login?x=1"
    handler.on_event(
        ev.ElicitationRequested(server="x", request_id="u1", message="Sign in", mode="url", url=url, elicitation_id="e")
    )
    card = handler.cards["u1"]
    assert card.findChild(QObject, "elicitationUrl").text() == url
    catcher = UrlCatcher()
    QDesktopServices.setUrlHandler("https", catcher, "handle")
    try:
        card.accept_button.click()
    finally:
        QDesktopServices.unsetUrlHandler("https")
    assert catcher.urls == [url]
    assert answerer.elicitation == [("u1", "accept", None)]
    handler.on_event(
        ev.ElicitationRequested(server="x", request_id="u2", message="?", mode="url", url="file:///etc/passwd")
    )
    assert not handler.cards["u2"].accept_button.isEnabled()  # only web links are opened


def test_open_requests_survive_a_new_chat(window: MainWindow) -> None:
    window.server_requests.answerer = Answerer()
    window.server_requests.on_event(sampling_event())
    card = window.server_requests.cards["s1"]
    window.view.clear()
    assert card in window.view.blocks() and window.view.empty_hint.isHidden()
    assert "wants to use your model" in window.status.text()


# -- through the real Runtime and Host -------------------------------------------------------------------


class Person(BaseModel):
    name: str = Field(description="What we call you")
    email: str = Field(json_schema_extra={"format": "email"})
    age: int = Field(ge=0, le=150)
    color: Literal["red", "green"] = "red"
    subscribe: bool = True


def _ask_model() -> Sample:
    message = mtypes.SamplingMessage(role="user", content=mtypes.TextContent(type="text", text="ping?"))
    return Sample([message], max_tokens=50, system_prompt="be brief")


def _who() -> ElicitRequest[Person]:
    return ElicitRequest("Who are you?", Person)


def make_server() -> MCPServer:
    server = MCPServer("asker", log_level="WARNING")

    @server.tool(annotations=READ_ONLY)
    async def sample(reply: Annotated[mtypes.CreateMessageResult, Resolve(_ask_model)]) -> str:
        assert isinstance(reply.content, mtypes.TextContent)
        return f"model said: {reply.content.text}"

    @server.tool(annotations=READ_ONLY)
    async def person(result: Annotated[ElicitationResult[Person], Resolve(_who)]) -> str:
        return f"{result.action}: {getattr(result, 'data', None)!r}"

    return server


def _await(qtbot: Any, loop: Any, coro: Any, timeout: int = 10_000) -> Any:
    task = loop.create_task(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def real_window(qtbot: Any, provider: FakeProvider) -> tuple[MainWindow, Runtime]:
    host = Host(call_timeout=30)
    host.register_builtin("switchboard.asker", make_server)
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="user-model"))
    runtime = Runtime(settings=settings, host=host, provider_factory=lambda _s, _k: provider)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_host(host)
    win.show()
    qtbot.waitExposed(win)
    return win, runtime


def _send(qtbot: Any, win: MainWindow, text: str) -> None:
    qtbot.keyClicks(win.composer.edit, text)
    qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)


def test_real_sampling_allowed_runs_on_the_users_provider(qtbot, qloop) -> None:
    provider = FakeProvider([calls(("c1", "sample", "{}")), answer("pong!"), answer("all done")])
    win, runtime = real_window(qtbot, provider)
    try:
        _send(qtbot, win, "Ask the server")
        qtbot.waitUntil(lambda: bool(win.server_requests.cards))
        [card] = win.server_requests.cards.values()
        assert isinstance(card, SamplingCard) and "switchboard.asker" in card.title.text()
        assert "ping?" in card.full.text()
        card.allow_button.click()
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=15_000)
        assert card.status.text().startswith("Allowed")
        assert len(provider.requests) == 3 and provider.requests[1].max_tokens == 50
        assert "ping?" in str(provider.requests[1].messages)
        assert only_card(win.view).result.text() == "model said: pong!"
        assert runtime.pending_server_requests() == []
    finally:
        _await(qtbot, qloop, runtime.aclose())


def test_real_elicitation_error_then_accept(qtbot, qloop) -> None:
    provider = FakeProvider([calls(("c1", "person", "{}")), answer("thanks")])
    win, runtime = real_window(qtbot, provider)
    try:
        _send(qtbot, win, "Who am I?")
        qtbot.waitUntil(lambda: bool(win.server_requests.cards))
        [card] = win.server_requests.cards.values()
        assert isinstance(card, ElicitationCard)
        assert isinstance(card.field("age").widget, QSpinBox) and isinstance(card.field("color").widget, QComboBox)
        card.field("name").widget.setText("Ada")
        card.field("email").widget.setText("not-an-email")
        card.accept_button.click()  # age missing, email malformed: refused by the runtime, the form stays
        assert card.is_open and not card.error.isHidden()
        assert "'age' is a required property" in card.error.text() and "email" in card.error.text()
        card.field("email").widget.setText("ada@example.com")
        card.field("age").widget.setValue(36)
        card.accept_button.click()
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=15_000)
        result = only_card(win.view).result.text()
        assert result.startswith("accept:") and "Ada" in result and "36" in result
    finally:
        _await(qtbot, qloop, runtime.aclose())


def test_real_elicitation_decline(qtbot, qloop) -> None:
    provider = FakeProvider([calls(("c1", "person", "{}")), answer("ok")])
    win, runtime = real_window(qtbot, provider)
    try:
        _send(qtbot, win, "Who am I?")
        qtbot.waitUntil(lambda: bool(win.server_requests.cards))
        [card] = win.server_requests.cards.values()
        card.decline_button.click()
        qtbot.waitUntil(lambda: not win.controller.busy, timeout=15_000)
        assert only_card(win.view).result.text().startswith("decline")
        assert card.status.text().startswith("Declined")
    finally:
        _await(qtbot, qloop, runtime.aclose())


def test_an_answered_elicitation_folds_to_one_summary_line_and_unfolds_on_click(requests) -> None:
    handler, _view, _answerer = requests
    handler.on_event(ev.ElicitationRequested(server="x", request_id="e9", message="Pick one", requested_schema={}))
    card = handler.cards["e9"]
    assert card.expanded and card.toggle.isHidden()
    card.decline_button.click()
    assert not card.expanded and card.content_box.isHidden()  # folded: the title and how it ended
    assert not card.toggle.isHidden() and not card.status.isHidden() and "'x'" in card.title.text()
    card.toggle.click()
    assert card.expanded and not card.content_box.isHidden()
