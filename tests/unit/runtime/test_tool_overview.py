"""The tool overview (the Tools panel's and ``switchboard tools``' data): what the model sees of each tool, from
the same computation as the deferred index; word search; a hook's tool shown as not offered."""

from __future__ import annotations

from typing import Any

from desktop_app.runtime.conversation import ProgressCallback
from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.host import CallOutcome, HostTool
from desktop_app.runtime.tools.deferral import DeferralSettings, ToolDeferral
from desktop_app.runtime.tools.overview import overview

SEARCH = HostTool(
    name="tool_search", server="switchboard.tools", tool="tool_search", input_schema={}, builtin=True, pinned=True
)


def tool(server: str, name: str, description: str, *, pinned: bool = False) -> HostTool:
    return HostTool(
        name=f"mcp__{server}__{name}",
        server=server,
        tool=name,
        description=description,
        input_schema={"type": "object", "properties": {}},
        pinned=pinned,
    )


class Source:
    def __init__(self, tools: list[HostTool]) -> None:
        self.list = [SEARCH, *tools]
        self.hooks: HookRunner | None = None

    def tools(self, *, include_excluded: bool = False) -> list[HostTool]:
        return sorted(self.list, key=lambda t: t.name)

    def server_identity(self, server: str) -> str | None:
        return server

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, progress: ProgressCallback | None = None
    ) -> CallOutcome:
        return CallOutcome(text="ok")


def widgets() -> list[HostTool]:
    big = [
        tool("widgets", f"widget_{i:02d}", f"Widget number {i} " + "with a long description " * 4) for i in range(60)
    ]
    return [
        *big,
        tool("time", "get_current_time", "The current time."),
        tool("crm", "lookup", "Look up a customer."),
        tool("widgets", "pinned_one", "Always there.", pinned=True),
    ]


def make(tools: list[HostTool]) -> ToolDeferral:
    return ToolDeferral(Source(tools), lambda: DeferralSettings())


def test_each_row_says_what_the_model_sees_as_the_index_does() -> None:
    deferral = make(widgets())
    view = deferral.view("c")
    view.promote(["mcp__widgets__widget_59"], "search")
    result = overview(deferral, view)
    rows = {r.name: r for r in result.rows}
    listed = deferral.plan().catalog.index().listed
    note = view.system_note()
    for row in rows.values():
        if row.state == "deferred" and not row.promoted:
            assert (row.visibility == "named") == (row.name in listed) == (f"  {row.name} — " in note)
    assert rows["mcp__time__get_current_time"].visibility == "named"
    assert rows["mcp__crm__lookup"].visibility == "named"
    assert rows["mcp__widgets__widget_00"].visibility == "named"
    assert rows["mcp__widgets__widget_58"].visibility == "search_only"  # past the big server's share
    assert rows["mcp__widgets__widget_59"].visibility == "schema"  # promoted
    assert rows["mcp__widgets__pinned_one"].visibility == "schema"
    assert result.named == len(listed) and result.search_only == 62 - len(listed) - 1  # less the promoted one
    assert result.to_json()["tools"][0]["visibility"] in ("schema", "named", "search_only")


def test_words_match_words_in_any_order_and_case() -> None:
    deferral = make(widgets())
    names = [r.name for r in overview(deferral, None, "widget 07").rows]
    assert names == ["mcp__widgets__widget_07"]  # both words in the name: not the regex 'widget 07'
    assert [r.name for r in overview(deferral, None, "CUSTOMER look").rows] == ["mcp__crm__lookup"]
    assert overview(deferral, None, "widget 99").rows == []
    found = overview(deferral, None, "number 1 long").rows  # every word required: name or description
    assert {r.name for r in found} == {f"mcp__widgets__widget_{i:02d}" for i in range(60) if "1" in f"{i:02d}"}
    # tool_search's forms still work.
    assert [r.name for r in overview(deferral, None, "select:mcp__crm__lookup").rows] == ["mcp__crm__lookup"]
    assert [r.name for r in overview(deferral, None, "^mcp__time").rows] == ["mcp__time__get_current_time"]


def test_a_hook_target_is_listed_as_not_offered_and_why() -> None:
    pii = tool("pii", "redact", "Redact personal data.")
    deferral = make([pii, tool("crm", "lookup", "Look up a customer.")])
    runner = HookRunner()
    runner.add_hooks(parse_hooks({"tools/call?direction=response": ["pii/redact"]}, HookSource("mcp-config")))
    deferral.host.hooks = runner  # type: ignore[attr-defined]
    result = overview(deferral, deferral.view("c"))
    row = next(r for r in result.rows if r.name == "mcp__pii__redact")
    assert row.state == "hook_target" and row.visibility == "not_offered"
    assert row.held_by == "the message hook 'tools/call?direction=response'"
    pii_summary = next(s for s in result.servers if s.name == "pii")
    assert pii_summary.tools == 0 and pii_summary.sent_tokens == 0
    assert result.total_tokens == next(r.tokens for r in result.rows if r.name == "mcp__crm__lookup")
