"""Per-run context: the items, the ``<context>`` block (injected clock and zone), and how a run sends it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.context import (
    MAX_INCLUDED_TEXT,
    datetime_item,
    default_context,
    file_item,
    human_size,
    os_item,
    render_context,
    text_item,
)
from desktop_app.runtime.messages import Attachment, UserMessage
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeHost, FakeProvider, answer

BERLIN_NOON = datetime(2025, 3, 4, 12, 5, tzinfo=ZoneInfo("Europe/Berlin"))


def test_datetime_item_names_date_time_zone_and_offset() -> None:
    item = datetime_item(BERLIN_NOON)
    assert item.kind == "datetime"
    assert item.text == "date: Tuesday, 2025-03-04\ntime: 12:05 Europe/Berlin (UTC+01:00)"
    assert item.label == "Tue 04 Mar 12:05 Europe/Berlin"


def test_datetime_item_with_a_fixed_offset_zone() -> None:
    moment = datetime(2025, 7, 1, 23, 59, tzinfo=timezone(timedelta(hours=-4, minutes=-30), "XST"))
    assert datetime_item(moment).text.endswith("time: 23:59 XST (UTC-04:30)")
    assert datetime_item(datetime(2025, 7, 1, 8, 0, tzinfo=UTC)).text.endswith("08:00 UTC (UTC+00:00)")


def test_os_item_with_injected_facts() -> None:
    item = os_item("Ubuntu 24.04 LTS", kernel="Linux 6.8.0", machine="x86_64")
    assert item.label == "Ubuntu 24.04 LTS"
    assert item.text == "os: Ubuntu 24.04 LTS (Linux 6.8.0, x86_64)"
    assert os_item("macOS 15.1", kernel="", machine="").text == "os: macOS 15.1"


def test_detected_os_item_is_not_empty() -> None:
    assert os_item().text.startswith("os: ")


def test_text_item_labels_with_a_preview_and_cuts_long_text() -> None:
    item = text_item("def main():\n    pass\n", kind="selection")
    assert item.label == "Selected text: def main():…"
    assert item.text == "selected text:\ndef main():\n    pass\n"
    long = text_item("x" * (MAX_INCLUDED_TEXT + 10), kind="clipboard")
    assert long.text.endswith(f"[… cut: {MAX_INCLUDED_TEXT + 10:,} characters, the first {MAX_INCLUDED_TEXT:,} shown]")


def test_render_context_is_compact_and_lists_files_on_one_line() -> None:
    items = [datetime_item(BERLIN_NOON), os_item("Linux", kernel="", machine=""), file_item("a.png", 2048)]
    items.append(file_item("notes.md", 100))
    assert render_context(items) == (
        "<context>\n"
        "date: Tuesday, 2025-03-04\n"
        "time: 12:05 Europe/Berlin (UTC+01:00)\n"
        "os: Linux\n"
        "attached files: a.png (2.0 KB), notes.md (100 B)\n"
        "</context>"
    )
    assert render_context([]) == ""


def test_human_size() -> None:
    assert [human_size(n) for n in (0, 1023, 1024, 1536, 5 * 1024 * 1024)] == [
        "0 B",
        "1023 B",
        "1.0 KB",
        "1.5 KB",
        "5.0 MB",
    ]


def test_default_context_follows_the_switches() -> None:
    assert [i.kind for i in default_context(now=BERLIN_NOON)] == ["datetime", "os"]
    assert [i.kind for i in default_context(now=BERLIN_NOON, include_os=False)] == ["datetime"]
    assert default_context(include_datetime=False, include_os=False) == []


def make_runtime(provider: FakeProvider, **settings: object) -> Runtime:
    return Runtime(
        settings=Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"), **settings),  # type: ignore[arg-type]
        host=FakeHost(),
        provider_factory=lambda _s, _k: provider,
        now=lambda: BERLIN_NOON,
    )


@pytest.mark.asyncio
async def test_run_sends_the_context_block_at_the_end_of_the_prompt_and_names_it_in_run_started() -> None:
    provider = FakeProvider([answer("ok")])
    runtime = make_runtime(provider, context_os=False)
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    note = Attachment(name="n.txt", mime_type="text/plain", kind="text", size=2, data="hi")
    context = [*runtime.default_context(), text_item("picked", kind="clipboard")]
    await runtime.run(runtime.new_conversation(), "What now?", attachments=[note], context=context)
    sent = provider.requests[0].messages[-1]
    assert isinstance(sent, UserMessage)
    assert sent.context == (
        "<context>\ndate: Tuesday, 2025-03-04\ntime: 12:05 Europe/Berlin (UTC+01:00)\n"
        "clipboard:\npicked\nattached files: n.txt (2 B)\n</context>"
    )
    assert sent.text_with_attachments().startswith('<file name="n.txt"')
    assert sent.text_with_attachments().endswith("</file>\n\nWhat now?\n\n" + sent.context)  # the end (#16)
    started = events[0]
    assert isinstance(started, ev.RunStarted)
    assert started.attachments == ["n.txt"]
    assert started.context == ["Tue 04 Mar 12:05 Europe/Berlin", "Clipboard: picked"]
    await runtime.aclose()


@pytest.mark.asyncio
async def test_without_context_the_message_is_unchanged() -> None:
    provider = FakeProvider([answer("ok")])
    runtime = make_runtime(provider)
    await runtime.run(runtime.new_conversation(), "plain")
    assert provider.requests[0].messages[-1] == UserMessage(content="plain")
    await runtime.aclose()
