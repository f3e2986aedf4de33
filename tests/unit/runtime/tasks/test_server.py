"""``switchboard.tasks`` through the real Host (lazy, in-process) and the approval rule for its changing tools."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from desktop_app.runtime import events as ev
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalPolicy, Grant, GrantStore
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store
from desktop_app.runtime.tasks import Tasks
from desktop_app.runtime.tasks.server import SERVER_NAME, make_tasks_server
from tests.support.fakes import FakeHost, FakeProvider, answer, calls
from tests.unit.runtime.tasks.conftest import FakeClock, GateRuntime


@pytest_asyncio.fixture
async def host() -> AsyncIterator[Host]:
    host = Host(call_timeout=10)
    yield host
    await host.aclose()


@pytest.mark.asyncio
async def test_tools_create_list_update_run_delete(host: Host, store: Store, clock: FakeClock) -> None:
    runtime = GateRuntime()
    tasks = Tasks(runtime, store, clock=clock)
    created: list[int] = []

    def factory():  # type: ignore[no-untyped-def]
        created.append(1)
        return make_tasks_server(tasks)

    host.register_builtin(SERVER_NAME, factory)
    assert created == []  # lazy: nothing until first use
    out = await host.call(
        SERVER_NAME,
        "create_task",
        {"name": "Inbox", "prompt": "Summarise my inbox", "schedule": "0 9 * * 1-5", "zone": "Europe/Paris"},
    )
    assert not out.is_error, out.text
    assert "Every weekday at 09:00, Europe/Paris" in out.text and "next run: 2026-03-02 09:00" in out.text
    bad = await host.call(SERVER_NAME, "create_task", {"name": "x", "prompt": "p", "schedule": "*/5 * * * *"})
    assert bad.is_error and "single number" in bad.text
    listed = await host.call(SERVER_NAME, "list_tasks", {})
    assert "Inbox" in listed.text and "runs: Summarise my inbox" in listed.text
    changed = await host.call(SERVER_NAME, "update_task", {"task": "inbox", "schedule": "0 8 1 * *"})
    assert "Monthly on the 1st at 08:00, Europe/Paris" in changed.text
    started = await host.call(SERVER_NAME, "run_task", {"task": "Inbox"})
    assert "Started" in started.text
    again = await host.call(SERVER_NAME, "run_task", {"task": "Inbox"})
    assert again.is_error and "still running" in again.text
    runtime.finish("c1")
    done = await tasks.runner.wait(tasks.find("Inbox").id)
    assert done is not None and done.status == "finished"
    listed = await host.call(SERVER_NAME, "list_tasks", {})
    assert "finished: answer c1" in listed.text
    gone = await host.call(SERVER_NAME, "delete_task", {"task": "Inbox"})
    assert "Deleted" in gone.text and tasks.all() == []
    missing = await host.call(SERVER_NAME, "delete_task", {"task": "Inbox"})
    assert missing.is_error and "There is no task 'Inbox'" in missing.text
    assert created == [1]
    await tasks.aclose()


def tasks_runtime(provider: FakeProvider, host: FakeHost, policy: ApprovalPolicy, grants: GrantStore) -> Runtime:
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    return Runtime(settings=settings, host=host, policy=policy, grants=grants, provider_factory=lambda _s, _k: provider)


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["ask", "always"])
async def test_changing_a_task_always_asks_even_with_always_allow(tmp_path: Path, mode: str) -> None:
    grants = GrantStore(tmp_path / "grants.json")
    grants.add(Grant(scope="server", server=SERVER_NAME, tool=None, origin="test"))  # "trust the whole server"
    host = FakeHost({"create_task": lambda a: "created", "list_tasks": lambda a: "none"}, server=SERVER_NAME)
    provider = FakeProvider(
        [
            calls(("a", f"mcp__{SERVER_NAME}__create_task", "{}"), ("b", f"mcp__{SERVER_NAME}__list_tasks", "{}")),
            answer("ok"),
        ]
    )
    runtime = tasks_runtime(provider, host, ApprovalPolicy(mode), grants)  # type: ignore[arg-type]
    seen: list[ev.Event] = []

    def on_event(event: ev.Event) -> None:
        seen.append(event)
        if isinstance(event, ev.ApprovalRequired):
            runtime.answer(event.tool_call_id, approved=True, scope="tool")  # "always allow" is offered, not kept

    runtime.subscribe(on_event)
    await runtime.run(runtime.new_conversation(), "make a task")
    asked = [e.tool for e in seen if isinstance(e, ev.ApprovalRequired)]
    assert asked == ["create_task"]  # list_tasks went through the grant; create_task was asked
    assert [g.tool for g in grants.list() if g.tool is not None] == []  # no "always" grant for create_task
    await runtime.aclose()


@pytest.mark.asyncio
async def test_never_still_denies_a_task_change(tmp_path: Path) -> None:
    host = FakeHost({"delete_task": lambda a: "deleted"}, server=SERVER_NAME)
    provider = FakeProvider([calls(("a", f"mcp__{SERVER_NAME}__delete_task", "{}")), answer("ok")])
    runtime = tasks_runtime(provider, host, ApprovalPolicy("never"), GrantStore(tmp_path / "g.json"))
    await runtime.run(runtime.new_conversation(), "delete it")
    assert host.log == []
    await runtime.aclose()
