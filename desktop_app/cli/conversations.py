"""``switchboard conversations [--json]`` and ``ask --conversation ID|last``: stored conversations on the terminal.

``conversations`` lists the stored conversations, most recently updated first: id, last update, model and
title (``--json``: one JSON array of objects). ``ask --conversation`` continues one of them: its stored
history (with the configured system prompt in front, as the window does) is loaded into the runtime before
the prompt, so each ``ask`` is one more turn of the same conversation. ``last`` means the most recently
updated one. Exit codes: 0 listed, 2 bad usage (history is off, or no such conversation).
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from desktop_app.paths import HOME_ENV, app_paths

if TYPE_CHECKING:
    from desktop_app.runtime.service import Runtime
    from desktop_app.runtime.store import Store

EXIT_OK, EXIT_USAGE = 0, 2


class UnknownConversation(Exception):
    """``--conversation`` named no stored conversation (the message says what to do)."""


def add_conversations_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    conv = sub.add_parser("conversations", help="List the stored conversations (ids for ask --conversation).")
    conv.add_argument("--json", action="store_true", help="print one JSON array instead of text")
    conv.add_argument("--limit", type=int, default=None, metavar="N", help="only the N most recent")
    conv.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")


def resolve_conversation(store: Store, ref: str) -> str:
    """The id ``ref`` names: ``last`` (the most recently updated), a full id, or a unique id prefix."""
    ref = ref.strip()
    if ref == "last":
        latest = store.list_conversations(limit=1)
        if not latest:
            raise UnknownConversation("there is no stored conversation to continue; run ask without --conversation")
        return latest[0].id
    info = store.get_conversation(ref)
    if info is not None and not info.deleted:
        return info.id
    matches = [c.id for c in store.list_conversations() if ref and c.id.startswith(ref)]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise UnknownConversation(f"{ref!r} matches {len(matches)} conversations; give more of the id")
    raise UnknownConversation(f"no conversation {ref!r}; `switchboard conversations` lists them")


def continue_conversation(runtime: Runtime, store: Store, conversation_id: str) -> None:
    """Load the stored history into ``runtime`` (the system prompt in front, as the first turn sent it: the
    skills index too), ready for the next prompt."""
    from desktop_app.runtime.messages import SystemMessage

    messages = store.load_messages(conversation_id)
    system_prompt = runtime.conversation_system_prompt(conversation_id)
    if system_prompt and not (messages and isinstance(messages[0], SystemMessage)):
        messages.insert(0, SystemMessage(content=system_prompt))
    runtime.load_conversation(conversation_id, messages)
    from desktop_app.runtime.store.compactions import restore

    restore(runtime, store, conversation_id)  # requests send the compacted history again
    from desktop_app.runtime.usage import sum_usage_rows

    runtime.set_conversation_usage(conversation_id, sum_usage_rows(store.usage(conversation_id)))


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def conversations_command(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_app.cli.terminal import terminal_safe
    from desktop_app.runtime.store import Store, StoreError, store_path

    paths = app_paths(ns.home).ensure()
    path = store_path(paths)
    if not path.exists():
        rows = []
    else:
        try:
            store = Store.open(path)
        except StoreError as exc:
            err.write(f"switchboard: conversation history cannot be read: {exc}\n")
            return EXIT_USAGE
        try:
            rows = store.list_conversations(limit=ns.limit)
            usage = {c.id: _totals(store.usage(c.id)) for c in rows}
        finally:
            store.close()
    if ns.json:
        data = [
            {
                "id": c.id,
                "title": c.title,
                "model": c.model,
                "base_url": c.base_url,
                "created_at": _iso(c.created_at),
                "updated_at": _iso(c.updated_at),
                "quick": c.quick,
                "usage": usage[c.id],
            }
            for c in rows
        ]
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return EXIT_OK
    if not rows:
        out.write("No stored conversations.\n")
        return EXIT_OK
    for c in rows:
        title = " ".join((c.title or "(untitled)").split())
        out.write(terminal_safe(f"{c.id}  {_iso(c.updated_at)}  {c.model or '-':<20} {title}") + "\n")
    return EXIT_OK


def _totals(rows: list[dict[str, object]]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for row in rows:
        for key, value in row.items():
            if isinstance(value, int) and not isinstance(value, bool) and key.endswith("tokens"):
                totals[key] = totals.get(key, 0) + value
    return totals
