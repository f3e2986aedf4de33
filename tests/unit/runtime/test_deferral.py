"""The deferral policy and the per-conversation tool view, over a fake host that records calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop_app.runtime.builtins.tools import search_result
from desktop_app.runtime.conversation import ProgressCallback
from desktop_app.runtime.host import CallOutcome, HostTool
from desktop_app.runtime.host.host import tool_spec
from desktop_app.runtime.settings import DeferralMode
from desktop_app.runtime.tools.deferral import DeferralSettings, PromotionStore, ToolDeferral, estimate_tokens

SEARCH = HostTool(
    name="tool_search", server="switchboard.tools", tool="tool_search", input_schema={}, builtin=True, pinned=True
)
CLOCK = HostTool(
    name="current_time", server="switchboard.system", tool="current_time", input_schema={}, builtin=True, pinned=True
)


def external(server: str, tool: str, *, pinned: bool = False, description: str = "does things") -> HostTool:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    return HostTool(
        name=f"mcp__{server}__{tool}",
        server=server,
        tool=tool,
        description=description,
        input_schema=schema,
        pinned=pinned,
    )


class FakeSource:
    def __init__(self, tools: list[HostTool]) -> None:
        self.list = [SEARCH, CLOCK, *tools]
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    def tools(self, *, include_excluded: bool = False) -> list[HostTool]:
        return sorted(self.list, key=lambda t: t.name)

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, progress: ProgressCallback | None = None
    ) -> CallOutcome:
        self.calls.append((server, tool, arguments))
        if tool == "tool_search":
            result = search_result(deferral.catalog(), str(arguments.get("query", "")))
            text = result.content[0].text  # type: ignore[union-attr]
            return CallOutcome(text=text, is_error=bool(result.is_error), structured=result.structured_content)
        return CallOutcome(text=f"ran {server}/{tool}")


deferral: ToolDeferral  # the one the fake's tool_search searches


def make(
    tools: list[HostTool], mode: DeferralMode = "auto", store: PromotionStore | None = None, **kw: Any
) -> ToolDeferral:
    global deferral
    settings = DeferralSettings(mode=mode, **kw)
    deferral = ToolDeferral(FakeSource(tools), lambda: settings, store)
    return deferral


def fifty() -> list[HostTool]:
    return [external(f"s{i % 5}", f"t{i:02d}") for i in range(50)]


def test_never_loads_everything_and_hides_tool_search() -> None:
    plan = make(fifty(), "never").plan()
    assert not plan.deferring and len(plan.loaded) == 51 and "tool_search" not in [t.name for t in plan.loaded]
    assert deferral.view("c").system_note() == ""


def test_auto_defers_above_forty_tools_only() -> None:
    tools = fifty()
    assert make(tools[:39]).plan().deferring is False  # 39 + current_time = 40: not more than 40
    assert make(tools[:40]).plan().deferring is True
    plan = make(tools).plan()
    assert {t.name for t in plan.loaded} == {"tool_search", "current_time"}
    assert len(plan.catalog) == 50


def test_auto_defers_above_the_share_of_the_context_window() -> None:
    tools = [external("big", f"t{i}", description="x" * 400) for i in range(5)]  # ~5 x 130 tokens
    per_tool = estimate_tokens(tool_spec(tools[0]))
    assert make(tools, context_window=100_000).plan().deferring is False  # 5% = 5,000 tokens
    plan = make(tools, context_window=per_tool * 5 * 20 - 100).plan()  # 5% just below the total
    assert plan.deferring and "context window" in plan.reason
    assert make(tools, context_window=100_000, context_percent=0.1).plan().deferring is True


def test_always_defers_but_pinned_tools_stay_loaded() -> None:
    tools = [external("a", "x"), external("a", "y", pinned=True)]
    plan = make(tools, "always").plan()
    assert plan.deferring and [t.name for t in plan.loaded] == ["current_time", "mcp__a__y", "tool_search"]
    assert plan.catalog.names() == ["mcp__a__x"]
    everything_pinned = make([external("a", "y", pinned=True)], "always").plan()
    assert not everything_pinned.deferring and "tool_search" not in [t.name for t in everything_pinned.loaded]


@pytest.mark.asyncio
async def test_search_promotes_and_appends_in_promotion_order(tmp_path: Path) -> None:
    view = make(fifty(), store=PromotionStore(tmp_path)).view("conv")
    seen: list[tuple[list[str], str]] = []
    view.listener = lambda names, reason, _hash: seen.append((names, reason))
    before = [s.name for s in view.tool_specs()]
    assert before == ["current_time", "tool_search"]
    assert "<available-deferred-tools>" in view.system_note()
    await view.call("switchboard.tools", "tool_search", {"query": "select:mcp__s3__t08"})
    await view.call("switchboard.tools", "tool_search", {"query": "select:mcp__s0__t05,mcp__s3__t08"})
    assert [s.name for s in view.tool_specs()] == [*before, "mcp__s3__t08", "mcp__s0__t05"]
    assert seen == [(["mcp__s3__t08"], "search"), (["mcp__s0__t05"], "search")]
    # saved with the catalog hash; a new deferral over the same catalog restores them
    again = ToolDeferral(deferral.host, lambda: DeferralSettings(), PromotionStore(tmp_path)).view("conv")
    assert [s.name for s in again.tool_specs()][2:] == ["mcp__s3__t08", "mcp__s0__t05"]


@pytest.mark.asyncio
async def test_no_match_and_errors_promote_nothing() -> None:
    view = make(fifty()).view("conv")
    outcome = await view.call("switchboard.tools", "tool_search", {"query": "zzz"})
    assert outcome.is_error and outcome.text.startswith(
        '{"ok":false,"error":"no matching deferred tools found","code":"no_match"}'
    )
    assert "Available deferred tools (50 total): mcp__s0__t00, mcp__s0__t05" in outcome.text
    assert view.promoted == []


@pytest.mark.asyncio
async def test_direct_call_of_a_deferred_tool_runs_and_promotes() -> None:
    view = make(fifty()).view("conv")
    target = view.lookup("mcp__s1__t06")
    assert target is not None and target.server == "s1"  # found although deferred: not "not found"
    outcome = await view.call("s1", "t06", {"q": "x"})
    assert outcome.text == "ran s1/t06"
    assert view.promoted == ["mcp__s1__t06"]
    assert view.lookup("mcp__nope__x") is None


def test_promotions_are_per_conversation() -> None:
    d = make(fifty())
    d.view("a").promote(["mcp__s1__t01"], "search")
    assert d.view("b").promoted == [] and d.view("a").promoted == ["mcp__s1__t01"]
    assert d.view("a").promote(["mcp__s1__t01", "not_a_tool"], "search") == []


def test_unreadable_promotion_file_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "conv.json").write_text("{broken", encoding="utf-8")
    store = PromotionStore(tmp_path)
    assert store.load("conv") is None
    assert store.load("../etc/passwd") is None
    view = make(fifty(), store=store).view("conv")
    assert [s.name for s in view.tool_specs()] == ["current_time", "tool_search"]


def test_promotions_restore_once_a_late_server_completes_the_catalog(tmp_path: Path) -> None:
    tools = fifty()
    full = make(tools, store=PromotionStore(tmp_path))
    full.view("conv").promote(["mcp__s4__t49"], "search")
    late = make(tools[:45], store=PromotionStore(tmp_path))  # some tools are not listed yet (a server still starting)
    view = late.view("conv")
    assert view.promoted == [] and [s.name for s in view.tool_specs()] == ["current_time", "tool_search"]
    source = late.host
    assert isinstance(source, FakeSource)
    source.list.extend(tools[45:])  # now they are: the catalog hash matches the saved one
    assert [s.name for s in view.tool_specs()] == ["current_time", "tool_search", "mcp__s4__t49"]


def test_prune_removes_the_promotions_of_purged_conversations(tmp_path: Path) -> None:
    store = PromotionStore(tmp_path)
    store.save("kept", "h", ["a"])
    store.save("purged", "h", ["b"])
    assert store.prune({"kept"}) == 1
    assert store.load("kept") == ("h", ["a"]) and store.load("purged") is None


# -- hook targets ------------------------------------------------------------------------------------


def hooked(tools: list[HostTool], mode: DeferralMode = "never") -> ToolDeferral:
    """A deferral whose host runs ``pii/redact`` as a message hook (mcp.json's ``hooks``)."""
    from desktop_app.runtime.hooks.config import parse_hooks
    from desktop_app.runtime.hooks.model import HookSource
    from desktop_app.runtime.hooks.runner import HookRunner

    made = make(tools, mode)
    runner = HookRunner()
    runner.add_hooks(parse_hooks({"tools/call?direction=response": ["pii/redact"]}, HookSource("mcp-config")))
    made.host.hooks = runner  # type: ignore[attr-defined]
    return made


@pytest.mark.asyncio
async def test_a_message_hook_target_is_not_offered_to_the_model() -> None:
    tools = [external("pii", "redact"), external("crm", "lookup")]
    d = hooked(tools)
    plan = d.plan()
    view = d.view("conv")
    names = [s.name for s in view.tool_specs()]
    assert "mcp__pii__redact" not in names and "mcp__crm__lookup" in names
    assert view.lookup("mcp__pii__redact") is None  # not callable by name either
    assert plan.held == {"mcp__pii__redact": "the message hook 'tools/call?direction=response'"}
    assert plan.visibility("mcp__pii__redact") == "not_offered" and plan.visibility("mcp__crm__lookup") == "schema"
    # Deferring: not in the catalog (the index, tool_search) either.
    deferred = hooked(tools, "always").plan()
    assert deferred.catalog.names() == ["mcp__crm__lookup"] and "redact" not in deferred.catalog.render()


def test_a_pinned_hook_target_is_offered() -> None:
    plan = hooked([external("pii", "redact", pinned=True)]).plan()
    assert "mcp__pii__redact" in [t.name for t in plan.loaded] and plan.held == {}


def test_a_lifecycle_mcp_hook_target_is_held_too_and_the_plan_follows_hook_changes() -> None:
    from desktop_app.runtime.hooks.config import parse_hooks
    from desktop_app.runtime.hooks.model import HookSource

    d = hooked([external("guard", "check"), external("pii", "redact")])
    assert "mcp__guard__check" in d.plan().by_name
    d.host.hooks.add_hooks(  # type: ignore[attr-defined]
        parse_hooks({"PreToolUse": [{"type": "mcp", "target": "guard/check"}]}, HookSource("user"))
    )
    plan = d.plan()  # recomputed: the hooks changed, the tools did not
    assert "mcp__guard__check" not in plan.by_name and plan.held["mcp__guard__check"] == "a PreToolUse hook"
