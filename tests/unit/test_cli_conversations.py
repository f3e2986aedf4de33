"""``switchboard conversations`` and ``ask --conversation`` resolution, on a real store (in-process)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.cli.conversations import UnknownConversation, resolve_conversation
from desktop_app.paths import app_paths
from desktop_app.runtime.store import Store, store_path


def seeded(home: Path) -> Store:
    clock = iter(range(100, 200))
    store = Store.open(store_path(app_paths(home).ensure()), clock=lambda: float(next(clock)))
    store.create_conversation("aaaa1111", title="First question", model="deepseek-chat")
    store.create_conversation("aaaa2222", title="Second one", model="gpt-x")
    store.create_conversation("bbbb3333", title="Gone", model="m")
    store.delete_conversation("bbbb3333")
    store.touch("aaaa1111")  # now the most recent
    return store


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_lists_live_conversations_most_recent_first_as_text_and_json(tmp_path: Path) -> None:
    seeded(tmp_path).close()
    code, out, _ = run("conversations", "--home", str(tmp_path))
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == ["aaaa1111", "aaaa2222"]
    assert lines[0].endswith("First question") and "deepseek-chat" in lines[0]
    code, out, _ = run("conversations", "--json", "--home", str(tmp_path))
    data = json.loads(out)
    assert [c["id"] for c in data] == ["aaaa1111", "aaaa2222"]
    assert data[1]["title"] == "Second one" and data[1]["model"] == "gpt-x" and data[1]["usage"] == {}


def test_no_store_yet_lists_nothing(tmp_path: Path) -> None:
    assert run("conversations", "--home", str(tmp_path)) == (0, "No stored conversations.\n", "")
    assert run("conversations", "--json", "--home", str(tmp_path))[1] == "[]\n"


def test_resolves_last_full_ids_and_unique_prefixes(tmp_path: Path) -> None:
    store = seeded(tmp_path)
    assert resolve_conversation(store, "last") == "aaaa1111"
    assert resolve_conversation(store, "aaaa2222") == "aaaa2222"
    assert resolve_conversation(store, "aaaa2") == "aaaa2222"
    with pytest.raises(UnknownConversation, match="matches 2"):
        resolve_conversation(store, "aaaa")
    with pytest.raises(UnknownConversation, match="no conversation 'bbbb3333'"):
        resolve_conversation(store, "bbbb3333")  # deleted
    store.close()


def test_ask_with_an_unknown_conversation_is_bad_usage_before_any_request(tmp_path: Path) -> None:
    seeded(tmp_path).close()
    code, _, err = run("ask", "--home", str(tmp_path), "--base-url", "http://127.0.0.1:9/v1", "--conversation",
                       "zzz", "hi")  # fmt: skip
    assert code == 2 and "no conversation 'zzz'" in err
