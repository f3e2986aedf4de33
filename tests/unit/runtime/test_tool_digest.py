"""Tool-result replay compaction (#16): the request gets a head/tail digest of an oversized result, decided
once, so later requests (also after a reopen from the store, also after the setting changed) repeat it byte
for byte; the store, the event and so the UI keep the whole result."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.compaction.tool_digest import digest, replay_limit_for
from desktop_app.runtime.conversation import wire_messages
from desktop_app.runtime.messages import ToolCallRequest, ToolMessage
from desktop_app.runtime.providers.base import Completion, ContentChunk
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from tests.support.fakes import FakeHost, FakeProvider

BIG = "".join(f"line {i:05d} of a very long tool result\n" for i in range(3000))  # ~111k characters


def test_digest_keeps_head_and_tail_and_says_it_was_compacted() -> None:
    assert digest("short", 100) == "short" and digest(BIG, 0) == BIG
    text = digest(BIG, 900)
    assert text.startswith(f"[tool result compacted for model replay: {len(BIG):,} characters")  # spec §1.1
    assert BIG[:600] in text and text.endswith(BIG[-300:]) and BIG[700:800] not in text
    assert f"[… {len(BIG) - 900:,} characters omitted …]" in text
    assert digest(BIG, 900) == text  # a pure function: the same bytes every time
    assert (replay_limit_for(BIG, 900), replay_limit_for("short", 900), replay_limit_for(BIG, 0)) == (900, 0, 0)


def answer(text: str) -> list[object]:
    return [ContentChunk(text=text), Completion(content=text)]


def call(call_id: str) -> list[object]:
    return [Completion(tool_calls=(ToolCallRequest(id=call_id, name="mcp__fake__dump", arguments="{}"),))]


@pytest.mark.asyncio
async def test_requests_repeat_the_digest_the_store_keeps_everything(tmp_path: Path) -> None:
    provider = FakeProvider([call("t1"), answer("Done."), answer("Second."), answer("Third.")])
    settings = Settings(
        provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"),
        tool_result_replay_limit=1200,
        auto_approve_read_only=True,
    )
    host = FakeHost(handlers={"dump": lambda _args: BIG})
    runtime = Runtime(settings=settings, host=host, provider_factory=lambda _s, _k: provider, api_key_override="k")
    runtime.subscribe(
        lambda e: runtime.answer(e.tool_call_id, approved=True) if e.kind == "approval_required" else None
    )
    results: list[ev.ToolResult] = []
    runtime.subscribe(lambda e: results.append(e) if isinstance(e, ev.ToolResult) else None)
    store = Store.open(tmp_path / "s.db")
    recorder = attach_store(runtime, store)
    cid = runtime.new_conversation()
    await runtime.run(cid, "dump it")
    [result] = results
    assert result.text == BIG and result.replay_limit == 1200  # the UI gets the whole result
    [sent] = [m for m in provider.requests[1].messages if isinstance(m, ToolMessage)]
    assert sent.content == digest(BIG, 1200) and len(sent.content) < 1400
    [kept] = [m for m in runtime.conversation(cid).messages if isinstance(m, ToolMessage)]
    assert kept.content == BIG  # the conversation (and the store) keep it all
    runtime.update_settings(tool_result_replay_limit=50)  # a later change does not touch the decided digest
    await runtime.run(cid, "again")
    recorder.flush()
    assert store.load_messages(cid)[2].content == BIG  # type: ignore[union-attr]
    # A reopened conversation (as `ask --conversation` does) sends the very same history.
    runtime.load_conversation(cid, store.load_messages(cid))
    await runtime.run(cid, "once more")
    await runtime.aclose()
    recorder.close()
    store.close()
    second, third, fourth = (list(r.messages) for r in provider.requests[1:])
    assert [m.model_dump_json() for m in third[: len(second)]] == [m.model_dump_json() for m in second]
    assert [m.model_dump_json() for m in fourth[: len(third)]] == [m.model_dump_json() for m in third]
    assert fourth[2] == sent  # the digest decided at 1,200 characters, not re-cut at the new 50
    assert wire_messages([kept]) == (sent.model_copy(update={"tool_call_id": kept.tool_call_id}),)
