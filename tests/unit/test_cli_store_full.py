"""``switchboard ask`` in-process on a disk that is full before it starts: the answer is printed whole, stderr
says the disk is full and that nothing was saved, and the exit code is the README's "not saved" (6), never 0."""

from __future__ import annotations

import io
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop_app.cli import EXIT_NOT_SAVED, main
from tests.support.llm_server import ScriptedLLMServer, text_reply

BOUND_S = 20
_connect = sqlite3.connect


def _full_disk_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
    conn = _connect(*args, **kwargs)
    conn.execute("PRAGMA max_page_count = 1")  # no room for the first table: SQLITE_FULL, as on a full disk
    return conn


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(main(list(argv), out=out, err=err)), daemon=True)
    thread.start()
    thread.join(BOUND_S)
    assert result, f"switchboard ask did not end within {BOUND_S} s; stderr so far: {err.getvalue()}"
    return result[0], out.getvalue(), err.getvalue()


def test_ask_on_a_disk_full_at_start_prints_the_answer_says_so_and_exits_not_saved(
    llm_server: ScriptedLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite3, "connect", _full_disk_connect)
    llm_server.enqueue(text_reply("The whole answer."), text_reply("Again."))
    base = ("ask", "--home", str(tmp_path / "h"), "--base-url", llm_server.url, "--model", "m")
    code, out, err = _run(*base, "Answer.")
    assert code == EXIT_NOT_SAVED, err
    assert out.rstrip("\n") == "The whole answer."
    assert "the disk is full" in err and "not a usable conversation database" not in err
    assert "switchboard: not saved:" in err and "only copy" in err

    code, out, err = _run(*base, "--events", "jsonl", "Again.")
    assert code == EXIT_NOT_SAVED, err
    [failed] = [e for e in map(json.loads, out.splitlines()) if e["kind"] == "store_failed"]
    assert "the disk is full" in failed["message"]
