"""Hook notices on tool cards (pytest-qt): the chip names the hook and the reasons, opens a before/after view,
and comes back after the conversation is reopened in a restarted app (real Runtime, real Host with the
shipped PII redactor as an in-process server, real Store, a real shell hook)."""

from __future__ import annotations

import gc
import importlib.util
import json
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QLabel

from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from desktop_app.ui.chat.hook_notice import HookNoticeChip, HookNoticeDialog
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeProvider, answer, calls, card_for

ROOT = Path(__file__).resolve().parents[4]
EXAMPLES = ROOT / "docs" / "examples" / "hooks"
REASON = "redacted 1 e-mail address, 1 phone number"


def _load(path: Path, name: str):  # the shipped example modules, loaded as a user's file would be
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _host() -> Host:
    pii = _load(EXAMPLES / "pii_redactor.py", "pii_redactor_example")
    crm = _load(ROOT / "tests" / "support" / "hook_tool_server.py", "hook_tool_server")
    host = Host(call_timeout=10)
    host.register_builtin("pii", lambda: pii.server)
    host.register_builtin("crm", lambda: crm.server)
    runner = HookRunner()
    guard = {"command": f"sh {EXAMPLES / 'block-rm-rf.sh'}", "match": "run", "description": "block rm -rf"}
    runner.add_hooks(
        parse_hooks(
            {"tools/call?direction=response&name=lookup": ["pii/redact"], "PreToolUse": [guard]},
            HookSource("user"),
        )
    )
    host.set_hooks(runner)
    return host


def _runtime(provider: FakeProvider, host: Host) -> Runtime:
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    return Runtime(
        settings=settings,
        host=host,
        provider_factory=lambda _s, _k: provider,
        api_key_override="k",
        policy=ApprovalPolicy("always"),
    )


def _window(qtbot, runtime: Runtime, store: Store) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_store(store)
    win.show()
    qtbot.waitExposed(win)
    return win


def _wait(qtbot, loop, coro) -> None:
    task = loop.create_task(coro)
    qtbot.waitUntil(task.done, timeout=15000)
    task.result()


def _settle(qtbot) -> None:
    """Collect what the run left (hook subprocess transports, MCP sessions) while this test's loop exists."""
    gc.collect()
    qtbot.wait(50)


def _chips(win: MainWindow, call_id: str) -> list[HookNoticeChip]:
    row = card_for(win.view, call_id).hook_notices
    return list(row.chips) if row is not None else []


def _check_cards(qtbot, win: MainWindow) -> None:
    [redacted] = _chips(win, "c1")
    assert redacted.full_text == f"Changed by pii/redact · {REASON}"  # shown whole, or elided to the card
    assert redacted.text() == redacted.full_text or redacted.full_text.startswith(redacted.text()[:-1])
    qtbot.waitUntil(redacted.isVisible)
    dialog = redacted.open_details()
    assert isinstance(dialog, HookNoticeDialog) and dialog.isVisible()
    [before], [after] = dialog.befores, dialog.afters
    assert "ada@example.com" in before.toPlainText() and "ada@example.com" not in after.toPlainText()
    assert "[email redacted]" in after.toPlainText()
    reasons = dialog.findChild(QLabel, "hookNoticeReasons")
    assert reasons is not None and REASON in reasons.text()
    dialog.close()
    [blocked] = _chips(win, "c2")
    assert blocked.text().startswith("Blocked by block rm -rf · refusing a recursive forced delete")
    assert blocked.property("kind") == "blocked"
    block_dialog = blocked.open_details()
    assert '"rm -rf /"' in block_dialog.befores[0].toPlainText()
    assert "not run" in block_dialog.afters[0].toPlainText()
    block_dialog.close()
    assert card_for(win.view, "c3").hook_notices is None  # an untouched call has no chip


def test_chip_opens_before_after_and_survives_a_restart(qtbot, qloop, tmp_path):
    path = tmp_path / "switchboard.db"
    store1 = Store.open(path)
    provider = FakeProvider(
        [
            calls(
                ("c1", "lookup", '{"name": "Ada"}'),
                ("c2", "run", '{"command": "rm -rf /"}'),
                ("c3", "run", '{"command": "ls"}'),
            ),
            answer("Done."),
        ]
    )
    runtime1 = _runtime(provider, _host())
    recorder1 = attach_store(runtime1, store1)
    win1 = _window(qtbot, runtime1, store1)
    win1.composer.edit.setPlainText("Who is Ada?")
    win1.composer.button.click()
    qtbot.waitUntil(lambda: not win1.controller.busy and card_for(win1.view, "c3") is not None, timeout=20000)
    conversation = win1.controller.conversation_id
    _check_cards(qtbot, win1)
    sent = provider.requests[1].messages[-3].content  # the model got the redacted text and the notice
    assert "ada@example.com" not in sent and sent.endswith(f"MCP response was mutated by hooks. Reasons: {REASON}")
    win1.close()
    _wait(qtbot, qloop, runtime1.aclose())
    recorder1.close()
    store1.close()

    store2 = Store.open(path)  # the app restarted: a new Runtime and Store on the same database
    runtime2 = _runtime(FakeProvider([]), _host())
    recorder2 = attach_store(runtime2, store2)
    win2 = _window(qtbot, runtime2, store2)
    try:
        item = win2.conversations.item_for(conversation)
        assert item is not None
        win2.conversations.list.itemClicked.emit(item)
        _check_cards(qtbot, win2)
    finally:
        _wait(qtbot, qloop, runtime2.aclose())
        recorder2.close()
        store2.close()
        _settle(qtbot)


def test_prompt_rewritten_or_blocked_by_a_hook_is_shown_and_stored(qtbot, qloop, tmp_path):
    from desktop_app.runtime import events as ev
    from desktop_app.ui.chat.hook_notice import HookNoticeLine
    from desktop_app.ui.chat.replay import read_transcript
    from desktop_app.ui.chat.view import ChatView

    rewrite = json.dumps({"updated_input": "my mail is [email]", "reason": "redacted 1 e-mail address"})
    host = Host()
    runner = HookRunner()
    runner.add_hooks(
        parse_hooks(
            {
                "UserPromptSubmit": [
                    {
                        "command": f"grep -q forbidden && {{ echo 'not this topic' >&2; exit 2; }}; echo '{rewrite}'",
                        "description": "prompt guard",
                    }
                ]
            },
            HookSource("user"),
        )
    )
    host.set_hooks(runner)
    provider = FakeProvider([answer("Noted.")])
    store = Store.open(tmp_path / "switchboard.db")
    runtime = _runtime(provider, host)
    recorder = attach_store(runtime, store)
    seen: list[ev.Event] = []
    runtime.subscribe(seen.append)
    try:
        cid = runtime.new_conversation()
        _wait(qtbot, qloop, runtime.run(cid, "my mail is ada@example.com"))
        assert provider.requests[0].messages[-1].content.startswith("my mail is [email]")
        [notice] = [e.notice for e in seen if isinstance(e, ev.HookNoticeEvent)]
        assert (notice.kind, notice.before, notice.after) == (
            "mutated",
            "my mail is ada@example.com",
            "my mail is [email]",
        )
        _wait(qtbot, qloop, runtime.run(cid, "a forbidden question"))
        assert len(provider.requests) == 1  # the blocked prompt never reached the model
        error = next(e for e in seen if isinstance(e, ev.Error))
        assert error.code == "hook_blocked" and error.message == (
            "Blocked by UserPromptSubmit hook prompt guard: not this topic"
        )
        recorder.flush()
        assert "ada@example.com" not in store.load_messages(cid)[0].content  # reopened: what the model saw
        view = ChatView()
        qtbot.addWidget(view)
        view.load_transcript(read_transcript(store, cid))
        lines = view.findChildren(HookNoticeLine)
        assert [line.chip.text() for line in lines] == [
            "Changed by prompt guard · redacted 1 e-mail address",
            "Blocked by prompt guard · not this topic",
        ]
        dialog = lines[0].chip.open_details()
        assert "ada@example.com" in dialog.befores[0].toPlainText()
        assert dialog.afters[0].toPlainText() == "my mail is [email]"
    finally:
        _wait(qtbot, qloop, runtime.aclose())
        recorder.close()
        store.close()
        _settle(qtbot)


def _fields_host() -> Host:
    """A contact lookup with a ``fields`` argument, and a PreToolUse hook that narrows ``all`` to ``public``."""
    from mcp.server.mcpserver import MCPServer

    crm = MCPServer("crm")

    @crm.tool(description="Look up a contact.", structured_output=False)
    def lookup(name: str, fields: str) -> str:
        return f"{name}: looked up with fields={fields}"

    host = Host(call_timeout=10)
    host.register_builtin("crm", lambda: crm)
    narrowed = json.dumps({"updated_input": {"name": "Ada", "fields": "public"}, "reason": "public fields only"})
    runner = HookRunner()
    runner.add_hooks(
        parse_hooks(
            {"PreToolUse": [{"command": f"echo '{narrowed}'", "match": "lookup", "description": "privacy"}]},
            HookSource("user"),
        )
    )
    host.set_hooks(runner)
    return host


def _check_ran_arguments(win: MainWindow) -> None:
    card = card_for(win.view, "c1")
    card.set_expanded(True)
    assert '"fields": "public"' in card.arguments.text() and '"all"' not in card.arguments.text()  # what ran
    changes = card.args.changes
    assert not changes.isHidden()
    plain = changes.text().replace("&nbsp;", " ")
    assert "Changed by hook privacy" in plain
    assert '− "fields": "all"' in plain and '+ "fields": "public"' in plain and '"name"' not in plain
    assert card.result.text() == "Ada: looked up with fields=public"


def test_a_hook_that_changed_the_arguments_shows_what_ran_with_its_diff_live_and_reopened(qtbot, qloop, tmp_path):
    path = tmp_path / "switchboard.db"
    store1 = Store.open(path)
    provider = FakeProvider([calls(("c1", "lookup", '{"name": "Ada", "fields": "all"}')), answer("Done.")])
    runtime1 = _runtime(provider, _fields_host())
    recorder1 = attach_store(runtime1, store1)
    win1 = _window(qtbot, runtime1, store1)
    win1.composer.edit.setPlainText("Who is Ada?")
    win1.composer.button.click()
    qtbot.waitUntil(lambda: not win1.controller.busy and card_for(win1.view, "c1") is not None, timeout=20000)
    qtbot.waitUntil(lambda: card_for(win1.view, "c1").has_result, timeout=20000)
    conversation = win1.controller.conversation_id
    _check_ran_arguments(win1)
    win1.close()
    _wait(qtbot, qloop, runtime1.aclose())
    recorder1.close()
    store1.close()

    store2 = Store.open(path)
    runtime2 = _runtime(FakeProvider([]), _fields_host())
    recorder2 = attach_store(runtime2, store2)
    win2 = _window(qtbot, runtime2, store2)
    try:
        item = win2.conversations.item_for(conversation)
        assert item is not None
        win2.conversations.list.itemClicked.emit(item)
        _check_ran_arguments(win2)
    finally:
        _wait(qtbot, qloop, runtime2.aclose())
        recorder2.close()
        store2.close()
        _settle(qtbot)


LONG_REASON = "public fields only, because the request did not ask for private data and policy says so"
CHIP_NOTICES = [
    {"kind": "mutated", "event": "PreToolUse", "hooks": ["privacy"], "reasons": [LONG_REASON], "target": "arguments",
     "before": {"name": "Ada", "fields": "all"}, "after": {"name": "Ada", "fields": "public"}, "message": "changed"},
    {"kind": "blocked", "event": "PreToolUse", "hooks": ["guard"], "reasons": ["no"], "message": "blocked"},
    {"kind": "failed", "event": "PostToolUse", "hooks": ["audit"], "reasons": ["exit 1"], "message": "failed"},
    {"kind": "warning", "event": "PostToolUse", "hooks": ["lint"], "reasons": ["style"], "message": "warned"},
    {"kind": "context", "event": "PostToolUse", "hooks": ["ctx"], "reasons": ["added"], "message": "context"},
]  # fmt: skip


def _card_with_chips(qtbot, width: int, notices=CHIP_NOTICES[:2]):
    from desktop_app.ui.chat.view import ChatView

    view = ChatView()
    qtbot.addWidget(view)
    view.resize(width, 700)
    view.show()
    qtbot.waitExposed(view)
    card = view.add_tool_card("c1", "crm", "lookup", {"name": "Ada", "fields": "all"})
    card.show_decision(True, None, "policy", "once", None)
    card.show_result("Ada Lovelace, [email redacted], notes: prefers email. " * 4, is_error=False)
    card.show_hook_notices(notices)
    card.set_expanded(True)
    qtbot.waitUntil(lambda: card.hook_notices.chips[0].isVisible())
    QApplication.processEvents()
    return view, card


def test_a_squeezed_chip_is_elided_with_an_ellipsis_and_keeps_its_full_text(qtbot):
    _view, card = _card_with_chips(qtbot, 400)
    chip = card.hook_notices.chips[0]
    full = f"Changed by privacy · {LONG_REASON}"
    shown = chip.text()
    assert shown.endswith("…") and full.startswith(shown[:-1]) and len(shown) > 12  # elided, not cut mid-word
    assert chip.fontMetrics().horizontalAdvance(shown) <= chip.contentsRect().width()  # it fits its chip
    assert full in chip.toolTip() and chip.accessibleName() == f"Hook notice: {full}"
    assert chip.geometry().right() < card.hook_notices.width()  # inside the card


def _contrast(a: QColor, b: QColor) -> float:
    def luminance(color: QColor) -> float:
        def channel(value: float) -> float:
            return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF())

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("theme_name", ["light", "dark"])
def test_chip_text_reads_at_4_5_to_1_in_both_themes(qtbot, theme_name):
    """Measured on the chip as drawn: the background inside its padding against its most distinct text pixel."""
    from desktop_app.ui.theme import themes as theme

    app = QApplication.instance()
    palette, sheet = QApplication.palette(), app.styleSheet()
    theme.apply_theme(theme_name)
    try:
        _view, card = _card_with_chips(qtbot, 1400, CHIP_NOTICES)
        for chip in card.hook_notices.chips:  # drawn on the card, as the user sees them
            image = card.grab(QRect(chip.mapTo(card, QPoint(0, 0)), chip.size())).toImage()
            middle = image.height() // 2
            background = image.pixelColor(6, middle)  # in the left padding, inside the rounded border
            pixels = (
                image.pixelColor(x, y) for x in range(12, image.width() - 12) for y in range(3, image.height() - 3)
            )
            text = max(pixels, key=lambda color: _contrast(color, background))
            ratio = _contrast(text, background)
            assert ratio >= 4.5, (
                f"{chip.property('kind')} chip in {theme_name}: {text.name()} on {background.name()} is {ratio:.2f}:1"
            )
    finally:
        app.setStyleSheet(sheet)
        QApplication.setPalette(palette)
        theme.uninstall()


def test_an_expanded_card_with_chips_shows_all_its_lines(qtbot):
    """Every line of the arguments, their diff and the result fits in the card as laid out (nothing clipped)."""
    _view, card = _card_with_chips(qtbot, 520)
    inside = card.contentsRect()
    for label in card.findChildren(QLabel):
        if not label.isVisible() or not label.text():
            continue
        top_left = label.mapTo(card, label.rect().topLeft())
        assert top_left.y() + label.height() <= inside.bottom() + 1, label.objectName()
        if label.wordWrap():
            assert label.height() >= label.heightForWidth(label.width()), label.objectName()
    arguments = card.arguments
    lines = arguments.text().count("\n") + 1
    assert arguments.height() >= lines * arguments.fontMetrics().lineSpacing()  # the closing brace too
