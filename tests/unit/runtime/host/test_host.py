"""The Host with in-process built-in servers: laziness, listing, names and every kind of call outcome."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
import mcp_types as mtypes
import pytest
import pytest_asyncio
from mcp import MCPError
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from desktop_app.runtime.errors import ServerNotFoundError
from desktop_app.runtime.host import CallOutcome, Host, ServerConfig, outcome_from_result
from desktop_app.runtime.messages import ToolSpec


def make_demo_server() -> MCPServer:
    server = MCPServer("demo", log_level="WARNING")

    @server.tool(description="Add two numbers.")
    async def add(a: int, b: int) -> int:
        return a + b

    @server.tool(annotations=mtypes.ToolAnnotations(read_only_hint=True))
    async def peek() -> str:
        return "just looking"

    @server.tool(structured_output=False)
    async def json_text() -> str:
        return '{"city": "Oslo", "temp": 3}'

    @server.tool()
    async def refuse() -> str:
        raise ToolError("the answer is no")

    @server.tool()
    async def boom() -> str:
        raise ValueError("kaboom")

    @server.tool()
    async def protocol_error() -> str:
        raise MCPError(code=-32602, message="bad params from the tool")

    @server.tool()
    async def hang() -> str:
        await anyio.Event().wait()
        return "never"

    return server


class CountingFactory:
    def __init__(self, build: Callable[[], MCPServer] = make_demo_server) -> None:
        self.calls = 0
        self.build = build

    def __call__(self) -> MCPServer:
        self.calls += 1
        return self.build()


@pytest_asyncio.fixture
async def host() -> AsyncIterator[Host]:
    host = Host(call_timeout=0.5)
    yield host
    await host.aclose()


@pytest.mark.asyncio
async def test_builtin_is_created_lazily_on_first_call(host: Host) -> None:
    factory = CountingFactory()
    host.register_builtin("switchboard.demo", factory)
    assert factory.calls == 0
    await host.start()
    assert factory.calls == 0
    assert host.tools() == []
    assert host.states()["switchboard.demo"].state == "idle"

    outcome = await host.call("switchboard.demo", "add", {"a": 2, "b": 3})

    assert factory.calls == 1
    assert outcome.model_copy(update={"meta": None}) == CallOutcome(
        text="5", structured={"result": 5}, content=[{"type": "text", "text": "5"}], is_error=False
    )
    await host.call("switchboard.demo", "add", {"a": 1, "b": 1})
    assert factory.calls == 1


@pytest.mark.asyncio
async def test_listing_keeps_bare_names_for_builtins(host: Host) -> None:
    factory = CountingFactory()
    host.register_builtin("switchboard.demo", factory)
    status = await host.ensure_connected("switchboard.demo")
    assert factory.calls == 1
    assert (status.state, status.tool_count, status.builtin) == ("ready", 7, True)

    names = [tool.name for tool in host.tools()]
    assert names == ["add", "boom", "hang", "json_text", "peek", "protocol_error", "refuse"]
    add = host.lookup("add")
    assert add is not None
    assert (add.server, add.tool, add.description, add.read_only) == (
        "switchboard.demo",
        "add",
        "Add two numbers.",
        False,
    )
    assert add.input_schema["type"] == "object"
    assert set(add.input_schema["properties"]) == {"a", "b"}
    peek = host.lookup("peek")
    assert peek is not None and peek.read_only
    assert host.lookup("nope") is None

    specs = {spec.name: spec for spec in host.tool_specs()}
    assert specs["add"] == ToolSpec(name="add", description="Add two numbers.", parameters=add.input_schema)
    assert specs["peek"].parameters["properties"] == {}


@pytest.mark.asyncio
async def test_tool_returning_is_error(host: Host) -> None:
    host.register_builtin("demo", make_demo_server)
    outcome = await host.call("demo", "refuse", {})
    assert outcome.is_error
    assert outcome.text == "Error executing tool refuse: the answer is no"


@pytest.mark.asyncio
async def test_raising_tool_is_an_error_outcome(host: Host) -> None:
    host.register_builtin("demo", make_demo_server)
    outcome = await host.call("demo", "boom", {})
    assert outcome.is_error
    assert "boom" in outcome.text


@pytest.mark.asyncio
async def test_protocol_error_from_a_tool_is_an_error_outcome(host: Host) -> None:
    host.register_builtin("demo", make_demo_server)
    outcome = await host.call("demo", "protocol_error", {})
    assert outcome.is_error
    assert "bad params from the tool" in outcome.text
    assert host.states()["demo"].state == "ready"


@pytest.mark.asyncio
async def test_unknown_tool(host: Host) -> None:
    host.register_builtin("demo", make_demo_server)
    outcome = await host.call("demo", "nope", {})
    assert outcome.is_error
    assert "Tool 'nope' was not found on MCP server 'demo'" in outcome.text


@pytest.mark.asyncio
async def test_unknown_server(host: Host) -> None:
    outcome = await host.call("ghost", "anything", {})
    assert outcome.is_error
    assert outcome.text.startswith("MCP server 'ghost' is not configured")
    with pytest.raises(ServerNotFoundError):
        host.stderr_tail("ghost")


@pytest.mark.asyncio
async def test_disabled_server_is_not_started_or_called() -> None:
    host = Host({"off": ServerConfig(command="does-not-matter", disabled=True)})
    await host.start()
    assert host.states()["off"].state == "disabled"
    outcome = await host.call("off", "x", {})
    assert outcome.is_error and "disabled" in outcome.text
    await host.aclose()


@pytest.mark.asyncio
async def test_json_text_becomes_structured(host: Host) -> None:
    host.register_builtin("demo", make_demo_server)
    outcome = await host.call("demo", "json_text", {})
    assert not outcome.is_error
    assert outcome.structured == {"city": "Oslo", "temp": 3}


@pytest.mark.asyncio
async def test_call_timeout_is_an_error_outcome(host: Host) -> None:
    host.register_builtin("demo", make_demo_server)
    outcome = await host.call("demo", "hang", {})
    assert outcome.is_error
    assert "timed out after 0.5 s" in outcome.text
    assert (await host.call("demo", "add", {"a": 1, "b": 2})).text == "3"


@pytest.mark.asyncio
async def test_arguments_must_be_an_object(host: Host) -> None:
    host.register_builtin("demo", make_demo_server)
    outcome = await host.call("demo", "add", [1, 2])  # type: ignore[arg-type]
    assert outcome.is_error and "JSON object" in outcome.text


@pytest.mark.asyncio
async def test_factory_that_raises_marks_the_builtin_failed(host: Host) -> None:
    def broken() -> MCPServer:
        raise RuntimeError("no database")

    host.register_builtin("broken", broken)
    outcome = await host.call("broken", "x", {})
    assert outcome.is_error and "no database" in outcome.text
    status = host.states()["broken"]
    assert status.state == "failed" and status.error is not None and "no database" in status.error


@pytest.mark.asyncio
async def test_aclose_stops_builtins(host: Host) -> None:
    host.register_builtin("demo", make_demo_server)
    await host.ensure_connected("demo")
    await host.aclose()
    assert host.states()["demo"].state == "stopped"
    assert host.tools() == []
    outcome = await host.call("demo", "add", {"a": 1, "b": 2})
    assert outcome.is_error and "not running" in outcome.text


def test_register_twice_is_refused() -> None:
    host = Host({"x": ServerConfig(command="x")})
    with pytest.raises(ValueError, match="already registered"):
        host.register_builtin("x", make_demo_server)


def test_non_text_blocks_are_summarized() -> None:
    result = mtypes.CallToolResult(
        content=[
            mtypes.TextContent(type="text", text="here"),
            mtypes.ImageContent(type="image", data="aGVsbG8=", mime_type="image/png"),
            mtypes.ResourceLink(type="resource_link", uri="file:///a.txt", name="a.txt"),
        ]
    )
    outcome = outcome_from_result(result)
    assert outcome.text == "here\n[image image/png, 5 bytes]\n[resource link file:///a.txt (a.txt)]"
    assert outcome.structured is None  # "here" is not JSON
    assert [block["type"] for block in outcome.content] == ["text", "image", "resource_link"]


def test_empty_error_result_gets_a_message() -> None:
    outcome = outcome_from_result(mtypes.CallToolResult(content=[], is_error=True))
    assert outcome == CallOutcome(text="MCP tool returned an error", is_error=True)


@pytest.mark.asyncio
async def test_aclose_interrupts_a_start_in_progress() -> None:
    entered = asyncio.Event()

    @asynccontextmanager
    async def never_ready(_server: MCPServer) -> AsyncIterator[None]:
        entered.set()
        await anyio.Event().wait()
        yield

    host = Host(startup_timeout=600)
    host.register_builtin("slow", lambda: MCPServer("slow", log_level="WARNING", lifespan=never_ready))
    connecting = asyncio.create_task(host.ensure_connected("slow"))
    await entered.wait()
    assert host.states()["slow"].state == "starting"
    with anyio.fail_after(10):
        await host.aclose()
        status = await connecting
    assert (status.state, status.error) == ("stopped", None)


@pytest.mark.asyncio
async def test_startup_timeout_marks_failed() -> None:
    @asynccontextmanager
    async def never_ready(_server: MCPServer) -> AsyncIterator[None]:
        await anyio.Event().wait()
        yield

    host = Host(startup_timeout=0.2)
    host.register_builtin("slow", lambda: MCPServer("slow", log_level="WARNING", lifespan=never_ready))
    status = await host.ensure_connected("slow")
    await host.aclose()
    assert status.state == "failed"
    assert status.error is not None and "within 0.2 s" in status.error
