"""Deferred tools end to end: 1,000 synthetic tools on 20 in-process servers, the real Host and Runtime,
and the loopback LLM server speaking the real SSE wire.

* The first request carries only ``tool_search`` and the pinned tools, and the system prompt holds the
  ``<available-deferred-tools>`` block.
* After a scripted ``tool_search``, the next request carries exactly those schemas, appended.
* A deferred tool called by its exact name runs after approval and is promoted.
* The promotions survive reopening the conversation (a new Host and Runtime on the same files), and are
  dropped when the catalog changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.builtins import TOOLS
from desktop_app.runtime.builtins.tools import make_tools_server
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.tools.deferral import DeferralSettings, PromotionStore, ToolDeferral
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply
from tests.support.synthetic_tools import add_servers

PINS: dict[str, dict[str, Any]] = {
    "srv00": {"pinned": ["tool_000", "tool_001"], "excludedTools": ["tool_002"]},
    "srv07": {"excludedTools": ["tool_000"]},
}
PINNED = ["mcp__srv00__tool_000", "mcp__srv00__tool_001"]


async def build(url: str, folder: Path, *, servers: int = 20) -> tuple[Runtime, list[ev.Event]]:
    host = Host()
    add_servers(host, servers=servers, tools=50, configs=PINS)
    settings = Settings(provider=ProviderSettings(base_url=url, model="m"))
    runtime = Runtime(settings=settings, host=host, policy=ApprovalPolicy("ask"))
    deferral = ToolDeferral(host, lambda: DeferralSettings.from_settings(runtime.settings), PromotionStore(folder))
    runtime.attach_deferral(deferral)
    host.register_builtin(TOOLS, lambda: make_tools_server(deferral.catalog))
    await host.start()
    events: list[ev.Event] = []

    def on_event(event: ev.Event) -> None:
        events.append(event)
        if isinstance(event, ev.ApprovalRequired):
            runtime.answer(event.tool_call_id, approved=True)

    runtime.subscribe(on_event)
    return runtime, events


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


def system_text(body: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")


@pytest.mark.asyncio
async def test_thousand_tools_search_promote_and_reopen(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    folder = tmp_path / "promoted"
    llm_server.enqueue(
        tool_call_reply([("s1", "tool_search", {"query": "select:mcp__srv12__tool_007,mcp__srv03__tool_042"})]),
        tool_call_reply([("c1", "mcp__srv12__tool_007", {"text": "hi"})]),
        tool_call_reply([("c2", "mcp__srv05__tool_003", {"text": "direct"})]),  # never searched for
        text_reply("Done."),
    )
    runtime, events = await build(llm_server.url, folder)
    try:
        conversation = runtime.new_conversation()
        outcome = await runtime.run(conversation, "use a weather tool")
        messages = list(runtime.conversation(conversation).messages)
        catalog = runtime.deferral.catalog()  # type: ignore[union-attr]
    finally:
        await runtime.aclose()
    assert outcome.status == "finished" and outcome.content == "Done."
    bodies = [r.json for r in llm_server.requests]
    assert len(bodies) == 4

    first = tool_names(bodies[0])
    assert sorted(first) == sorted(["tool_search", *PINNED])  # 1,000 tools, three schemas
    block = system_text(bodies[0])
    assert "<available-deferred-tools>" in block and "[server: srv00]" in block
    # 996 tools do not fit in 4,000 characters: every server is named, each lists its first tools and says
    # how tool_search finds the rest.
    assert all(f"[server: srv{i:02d}] " in block for i in range(20))
    assert '  … 46 more: use tool_search "+mcp__srv00__ <words>"' in block
    assert "tool_search finds all 996 deferred tools" in block
    # srv00's excluded tool is left out, its next tool is listed.
    assert "  mcp__srv00__tool_002 — " not in block and "  mcp__srv00__tool_003 — " in block
    assert "mcp__srv07__tool_000" not in catalog and "mcp__srv07__tool_001" in catalog  # excluded: never offered
    assert len(catalog) == 1000 - 2 - 2  # two pinned (loaded), two excluded
    assert "mcp__srv00__tool_000" not in block  # pinned: loaded, not deferred

    # tool_search promoted the two matches (in catalog order), appended after the first list.
    assert tool_names(bodies[1]) == [*first, "mcp__srv03__tool_042", "mcp__srv12__tool_007"]
    promoted = bodies[1]["tools"][-1]["function"]
    assert promoted["parameters"]["properties"].keys() == {"text", "count"}
    search_result = next(m for m in bodies[1]["messages"] if m.get("tool_call_id") == "s1")
    assert search_result["content"].startswith("Activated 2 tool(s):")
    called = next(m for m in bodies[2]["messages"] if m.get("tool_call_id") == "c1")
    assert called["content"] == "srv12.tool_007('hi', 1)"

    # A deferred tool called by its exact name ran after approval, and is promoted.
    direct = next(m for m in bodies[3]["messages"] if m.get("tool_call_id") == "c2")
    assert direct["content"] == "srv05.tool_003('direct', 1)"
    assert tool_names(bodies[3]) == [*tool_names(bodies[1]), "mcp__srv05__tool_003"]
    wire = {e.tool_call_id: e.model_call_id for e in events if isinstance(e, ev.ToolCall)}  # ours -> the model's
    asked = [wire[e.tool_call_id] for e in events if isinstance(e, ev.ApprovalRequired)]
    assert asked == ["c1", "c2"]  # tool_search never asks; the direct call took the normal approval path
    promotions = [(e.tools, e.reason) for e in events if isinstance(e, ev.ToolsPromoted)]
    assert promotions == [
        (["mcp__srv03__tool_042", "mcp__srv12__tool_007"], "search"),
        (["mcp__srv05__tool_003"], "direct_call"),
    ]

    # Reopen: a new host and runtime over the same promotion files; the first request has them all.
    llm_server.requests.clear()
    llm_server.enqueue(text_reply("Back."))
    runtime, events = await build(llm_server.url, folder)
    try:
        runtime.load_conversation(conversation, messages)
        await runtime.run(conversation, "again")
    finally:
        await runtime.aclose()
    assert tool_names(llm_server.requests[0].json) == tool_names(bodies[3])
    restored = [e for e in events if isinstance(e, ev.ToolsPromoted)]
    assert [(e.tools, e.reason) for e in restored] == [
        (["mcp__srv03__tool_042", "mcp__srv12__tool_007", "mcp__srv05__tool_003"], "restored")
    ]

    # A changed catalog (one server fewer) does not restore them.
    llm_server.requests.clear()
    llm_server.enqueue(text_reply("Changed."))
    runtime, events = await build(llm_server.url, folder, servers=19)
    try:
        runtime.load_conversation(conversation, messages)
        await runtime.run(conversation, "once more")
    finally:
        await runtime.aclose()
    assert sorted(tool_names(llm_server.requests[0].json)) == sorted(["tool_search", *PINNED])
    assert not any(isinstance(e, ev.ToolsPromoted) for e in events)
