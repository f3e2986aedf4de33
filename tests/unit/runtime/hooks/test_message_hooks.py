"""nanobot's MCP message hooks (seed-behaviours §2.3–2.4) through the real ``Host.call`` with in-process servers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.message import (
    IMPLICIT_REJECTION,
    MUTATIONS_META_KEY,
    HookMapping,
    HookTarget,
    parse_key,
    sorted_mappings,
)
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.host import Host

USER = HookSource("user")


def tools_server() -> MCPServer:
    server = MCPServer("tools", log_level="WARNING")

    @server.tool(structured_output=False)
    async def echo(text: str = "") -> str:
        return "tool output" if not text else f"echo: {text}"

    return server


def _set_args(message: dict[str, Any], **args: Any) -> dict[str, Any]:
    params = dict(message.get("params") or {})
    params["arguments"] = {**(params.get("arguments") or {}), **args}
    return {**message, "params": params}


def filters_server() -> MCPServer:
    server = MCPServer("filters", log_level="WARNING")

    @server.tool()
    async def normalize(accept: bool, mutated: bool, message: dict[str, Any], reason: str) -> dict[str, Any]:
        return {
            "accept": True,
            "mutated": True,
            "message": _set_args(message, text="NORMALIZED"),
            "reason": "request normalized",
        }

    @server.tool()
    async def redact_request(accept: bool, mutated: bool, message: dict[str, Any], reason: str) -> dict[str, Any]:
        text = message["params"]["arguments"].get("text", "")
        return {
            "accept": True,
            "mutated": True,
            "message": _set_args(message, text=text.replace("NORMAL", "*")),
            "reason": "request redacted",
        }

    @server.tool()
    async def filter_response(accept: bool, mutated: bool, message: dict[str, Any], reason: str) -> dict[str, Any]:
        if "result" not in message:
            return {"accept": True}
        return {"accept": True, "mutated": True, "reason": "response filtered", "message": message}

    @server.tool()
    async def first(accept: bool, mutated: bool, message: dict[str, Any], reason: str) -> dict[str, Any]:
        return {"mutated": True, "message": _set_args(message, text="one"), "reason": "first mutation"}

    @server.tool()
    async def second(accept: bool, mutated: bool, message: dict[str, Any], reason: str) -> dict[str, Any]:
        return {
            "mutated": True,
            "message": _set_args(message, text=message["params"]["arguments"]["text"] + "+two"),
            "reason": "second mutation",
        }

    @server.tool()
    async def quiet(accept: bool, mutated: bool, message: dict[str, Any], reason: str) -> dict[str, Any]:
        return {"accept": True}  # leaves message, mutated and reason as they were

    @server.tool()
    async def reject(accept: bool, mutated: bool, message: dict[str, Any], reason: str) -> dict[str, Any]:
        return {"accept": False, "reason": "contains a secret"}

    return server


@pytest_asyncio.fixture
async def host() -> AsyncIterator[Host]:
    host = Host(call_timeout=5)
    host.register_builtin("tools", tools_server)
    host.register_builtin("filters", filters_server)
    yield host
    await host.aclose()


def wire(host: Host, hooks: dict[str, Any]) -> None:
    runner = HookRunner()
    found = parse_hooks(hooks, USER)
    assert not found.problems
    runner.add_hooks(found)
    host.set_hooks(runner)


def texts(content: list[dict[str, Any]]) -> list[str]:
    return [block["text"] for block in content if block.get("type") == "text"]


def test_key_parsing_sorting_and_mutate_prefix_round_trip() -> None:
    assert parse_key("tools/call?direction=request&name=a&name=b&x=") == (
        "tools/call",
        {"direction": "request", "name": "a,b", "x": ""},
    )
    target = HookTarget.parse("!mutate:audit/check")
    assert (target.server, target.tool, target.mutate_allowed) == ("audit", "check", False)
    assert str(target) == "!mutate:audit/check"
    mappings = [HookMapping(k, (target,), USER) for k in ("tools/call?direction=response", "*", "tools/call")]
    assert [m.key for m in sorted_mappings(mappings)] == ["*", "tools/call", "tools/call?direction=response"]
    star, plain, response = sorted_mappings(mappings)
    params = {"method": "tools/call", "direction": "request", "name": "x", "callOnError": "false"}
    assert star.matches("resources/read", params) and plain.matches("tools/call", params)
    assert not response.matches("tools/call", params)
    with pytest.raises(ValueError, match="server/tool"):
        HookTarget.parse("no-slash")


@pytest.mark.asyncio
async def test_notice_order_and_meta_shape(host: Host) -> None:
    wire(
        host,
        {
            "tools/call?direction=request": ["filters/normalize", "filters/redact_request"],
            "tools/call?direction=response": ["filters/filter_response"],
        },
    )
    outcome = await host.call("tools", "echo", {})
    assert texts(outcome.content) == [
        "MCP request was mutated by hooks. Reasons: request normalized; request redacted",
        "echo: *IZED",
        "MCP response was mutated by hooks. Reasons: response filtered",
    ]
    assert outcome.meta is not None
    assert outcome.meta[MUTATIONS_META_KEY] == {
        "request": {"mutated": True, "reasons": ["request normalized", "request redacted"]},
        "response": {"mutated": True, "reasons": ["response filtered"]},
    }
    request_notice = next(n for n in outcome.hooks if n.event == "tools/call request")
    assert request_notice.before == {} and request_notice.after == {"text": "*IZED"}
    assert request_notice.hooks == ["filters/normalize", "filters/redact_request"]


@pytest.mark.asyncio
async def test_nanobot_content_order_with_the_tool_output(host: Host) -> None:
    """The exact vector of nanobot's service_test: [request notice, tool output, response notice]."""
    wire(
        host,
        {
            "tools/call?direction=request": ["filters/quiet"],
            "tools/call?direction=response": ["filters/filter_response"],
        },
    )
    outcome = await host.call("tools", "echo", {})
    assert texts(outcome.content) == ["tool output", "MCP response was mutated by hooks. Reasons: response filtered"]
    assert outcome.meta is not None
    assert outcome.meta[MUTATIONS_META_KEY] == {"response": {"mutated": True, "reasons": ["response filtered"]}}
    assert "io.modelcontextprotocol/serverInfo" in outcome.meta  # existing _meta keys are kept


@pytest.mark.asyncio
async def test_reasons_accumulate_across_chained_hooks(host: Host) -> None:
    wire(host, {"tools/call?direction=request": ["filters/first", "filters/second"]})
    outcome = await host.call("tools", "echo", {"text": "zero"})
    assert outcome.meta is not None
    assert outcome.meta[MUTATIONS_META_KEY] == {
        "request": {"mutated": True, "reasons": ["first mutation", "second mutation"]}
    }
    assert "echo: one+two" in outcome.text  # the second hook saw the first one's message


@pytest.mark.asyncio
async def test_fields_a_hook_leaves_out_keep_earlier_values(host: Host) -> None:
    wire(host, {"tools/call?direction=request": ["filters/first", "filters/quiet"]})
    outcome = await host.call("tools", "echo", {"text": "zero"})
    assert "echo: one" in outcome.text  # quiet kept the first hook's message
    assert outcome.meta is not None
    assert outcome.meta[MUTATIONS_META_KEY]["request"]["reasons"] == ["first mutation"]


@pytest.mark.asyncio
async def test_implicit_rejection_when_a_no_mutate_target_mutates(host: Host) -> None:
    wire(host, {"tools/call?direction=request": ["!mutate:filters/first"]})
    outcome = await host.call("tools", "echo", {"text": "zero"})
    assert outcome.is_error
    assert outcome.text == (
        'failed to call "request" hooks: hook tools/call?direction=request rejected message: '
        f"first mutation; {IMPLICIT_REJECTION}"
    )
    assert outcome.hooks[-1].kind == "rejected" and outcome.hooks[-1].hooks == ["filters/first"]


@pytest.mark.asyncio
async def test_a_rejection_is_a_clear_error_and_the_tool_output_never_leaves(host: Host) -> None:
    wire(host, {"tools/call?direction=response&name=echo": ["filters/reject"]})
    outcome = await host.call("tools", "echo", {"text": "secret"})
    assert outcome.is_error and "secret" not in outcome.text.replace("contains a secret", "")
    assert outcome.text.endswith("rejected message: contains a secret")


@pytest.mark.asyncio
async def test_params_name_and_callonerror_select_mappings(host: Host) -> None:
    wire(
        host,
        {
            "tools/call?direction=request&name=other": ["filters/reject"],
            "tools/call?direction=response&callOnError=true": ["filters/reject"],
        },
    )
    outcome = await host.call("tools", "echo", {})
    assert not outcome.is_error and outcome.text == "tool output"
    assert MUTATIONS_META_KEY not in (outcome.meta or {}) and outcome.hooks == []


@pytest.mark.asyncio
async def test_per_server_hooks_apply_to_that_server_only(host: Host) -> None:
    runner = HookRunner()
    runner.add_hooks(parse_hooks({"tools/call": ["filters/reject"]}, USER, scope="other"))
    host.set_hooks(runner)
    assert not (await host.call("tools", "echo", {})).is_error
