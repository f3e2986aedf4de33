"""``switchboard tasks list|add|run|remove|history [--json]`` in-process, ``run`` against the loopback model."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

from desktop_app.cli import main
from desktop_app.runtime.store import Store
from tests.support.llm_server import ScriptedLLMServer, text_reply

BOUND_S = 20


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(main(list(argv), out=out, err=err)), daemon=True)
    thread.start()
    thread.join(BOUND_S)
    assert result, f"switchboard {argv[0]} did not end within {BOUND_S} s; stderr so far: {err.getvalue()}"
    return result[0], out.getvalue(), err.getvalue()


def test_add_list_run_history_remove(llm_server: ScriptedLLMServer, tmp_path: Path) -> None:
    home = ("--home", str(tmp_path / "h"))
    code, out, err = _run(
        "tasks", "add", "Inbox", "--prompt", "Summarise my inbox", "--schedule", "0 9 * * 1-5", "--zone",
        "Europe/Paris", *home,
    )  # fmt: skip
    assert code == 0, err
    assert "schedule: Every weekday at 09:00, Europe/Paris" in out

    code, _out, err = _run("tasks", "add", "Bad", "--prompt", "x", "--schedule", "*/5 * * * *", *home)
    assert code == 2 and "'*/5' must be a single number" in err and "'M H * * *' (every day)" in err

    code, out, err = _run("tasks", "list", "--json", *home)
    [listed] = json.loads(out)
    assert (listed["name"], listed["when"], listed["last_run"]) == (
        "Inbox",
        "Every weekday at 09:00, Europe/Paris",
        None,
    )
    assert listed["next_run"] is not None and listed["schedule"] == "0 9 * * 1-5"

    llm_server.enqueue(text_reply("You have 3 unread messages.\nOne is urgent."))
    code, out, err = _run("tasks", "run", "inbox", "--base-url", llm_server.url, "--model", "m", *home)
    assert code == 0, err
    assert out.startswith("You have 3 unread messages.")
    assert llm_server.requests[0].json["messages"][-1]["content"].endswith("Summarise my inbox")

    code, out, err = _run("tasks", "history", "Inbox", "--json", *home)
    [run] = json.loads(out)
    assert (run["status"], run["trigger"]) == ("finished", "manual")
    with Store.open(tmp_path / "h" / "data" / "switchboard.db") as store:
        tagged = store.connection.execute("SELECT task_id FROM conversations WHERE id = ?", (run["conversation_id"],))
        assert tagged.fetchone()[0] == listed["id"]
        assert "3 unread" in str(store.load_messages(run["conversation_id"])[-1])

    code, out, err = _run("tasks", "remove", "INBOX", *home)
    assert code == 0 and "Removed the task 'Inbox'." in out
    code, out, err = _run("tasks", "remove", "Inbox", *home)
    assert code == 2 and "There is no task 'Inbox'. Tasks: none yet." in err
