"""Task runs through the real Runtime and store: the conversation tagged and holding the answer, a run that
waits for an approval ("waiting for you") until it is answered, and runs cut by a crash marked interrupted."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import Store, attach_store
from desktop_app.runtime.tasks import TaskRun, Tasks
from desktop_app.runtime.tasks.records import TaskRecords
from tests.support.fakes import FakeHost, FakeProvider, answer, calls
from tests.unit.runtime.tasks.conftest import FakeClock


def runtime_with(provider: FakeProvider, host: FakeHost | None = None) -> Runtime:
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    return Runtime(
        settings=settings,
        host=host or FakeHost({}),
        policy=ApprovalPolicy("ask"),
        provider_factory=lambda _s, _k: provider,
    )


@pytest.mark.asyncio
async def test_a_run_is_a_conversation_tagged_with_its_task(store: Store, clock: FakeClock) -> None:
    runtime = runtime_with(FakeProvider([answer("Three new notifications.\nDetails follow.")]))
    recorder = attach_store(runtime, store)
    tasks = Tasks(runtime, store, clock=clock)
    seen: list[TaskRun] = []
    tasks.runner.add_listener(seen.append)
    task = tasks.create(name="Notifications", prompt="Summarise my notifications")  # "now": runs at once
    done = await tasks.runner.wait(task.id)
    recorder.flush()
    assert done is not None and done.status == "finished"
    assert done.first_line == "Three new notifications."
    assert [r.status for r in seen] == ["running", "finished"]
    assert done.conversation_id is not None
    assert tasks.records.task_of(done.conversation_id) == task.id
    stored = store.load_messages(done.conversation_id)
    assert [m.role for m in stored][-2:] == ["user", "assistant"]
    assert "Three new notifications." in str(stored[-1])
    info = store.get_conversation(done.conversation_id)
    assert info is not None and info.title == "Notifications"
    await tasks.aclose()
    await runtime.aclose()


@pytest.mark.asyncio
async def test_an_approval_in_a_background_run_waits_for_the_user(store: Store, clock: FakeClock) -> None:
    host = FakeHost({"send": lambda a: "sent"})
    runtime = runtime_with(FakeProvider([calls(("k", "mcp__fake__send", "{}")), answer("Sent.")]), host)
    tasks = Tasks(runtime, store, clock=clock)
    waiting = asyncio.Event()
    asked: list[str] = []

    def on_event(event: ev.Event) -> None:
        if isinstance(event, ev.ApprovalRequired):
            asked.append(event.tool_call_id)

    runtime.subscribe(on_event)
    tasks.runner.add_listener(lambda run: waiting.set() if run.status == "waiting" else None)
    task = tasks.create(name="Send", prompt="send it")
    await waiting.wait()
    live = tasks.history(task.id)[0]
    assert (live.status, live.note) == ("waiting", "waiting for you: approve fake / send")
    assert host.log == []  # nothing ran on its own
    assert runtime.pending_approvals() == asked
    runtime.answer(asked[0], approved=True)  # what the window's approval card does
    done = await tasks.runner.wait(task.id)
    assert done is not None and (done.status, done.answer) == ("finished", "Sent.")
    assert host.log == [("fake", "send", {})]
    await tasks.aclose()
    await runtime.aclose()


@pytest.mark.asyncio
async def test_a_run_cut_by_a_crash_is_interrupted_with_its_partial_answer(tmp_path: Path, clock: FakeClock) -> None:
    path = tmp_path / "switchboard.db"
    with Store.open(path, clock=clock.now) as first:
        records = TaskRecords(first)
        tasks = Tasks(runtime_with(FakeProvider()), first, clock=clock)
        task = tasks.create(name="Long", prompt="p", schedule="0 9 * * *")
        first.ensure_conversation("conv-1")
        message = first.add_message("conv-1", "assistant", run_id=None, status="streaming")
        first.add_part(message, "text", "Half of the ans")
        run = records.add_run(task.id, "schedule", "running", conversation_id="conv-1")
        # the process "dies": its lease is left behind by a pid that no longer runs
        first.connection.execute("UPDATE task_runs SET owner = 'gone-4242' WHERE id = ?", (run.id,))
    with Store.open(path, clock=clock.now) as second:
        second.mark_interrupted_runs()
        tasks = Tasks(runtime_with(FakeProvider()), second, clock=clock)
        tasks.start()
        assert [r.id for r in tasks.interrupted] == [run.id]
        again = tasks.history(task.id)[0]
        assert (again.status, again.answer) == ("interrupted", "Half of the ans")
        assert "interrupted" in again.note
        assert tasks.find("long").schedule is not None  # the task itself survived the restart
        await tasks.aclose()


@pytest.mark.asyncio
async def test_one_scheduler_per_store(tmp_path: Path, clock: FakeClock) -> None:
    path = tmp_path / "switchboard.db"
    with Store.open(path, clock=clock.now) as first, Store.open(path, clock=clock.now) as second:
        app = Tasks(runtime_with(FakeProvider()), first, clock=clock)
        serve = Tasks(runtime_with(FakeProvider()), second, clock=clock)
        app.start()
        serve.start()
        assert (app.scheduling, serve.scheduling) == (True, False)  # the second leaves the schedule to the first
        await app.aclose()
        again = Tasks(runtime_with(FakeProvider()), second, clock=clock)
        again.start()
        assert again.scheduling  # released with the first
        await serve.aclose()
        await again.aclose()
