"""``switchboard compact --conversation ID|last [--undo] [--json]``: compact a stored conversation from the terminal.

Summarises the conversation's older turns with its model (the latest ``compact_keep_turns`` stay verbatim),
running the PreCompact and PostCompact hooks, exactly as "Compact now" in the window does; the next
``switchboard ask --conversation`` then sends the system prompt, the summary and the verbatim tail.
Nothing is deleted: ``--undo`` undoes the compaction in force, and the next request has the full history
again. The provider options are ``ask``'s (``--base-url``, ``--model``, ``--dialect``, ``--api-key-env``);
by default the configured provider.

Output: one line saying what was summarised and the next request's estimated tokens before and after
(``--json``: one JSON object, ``{"conversation_id", "action", "compaction", "tokens_before", "tokens_after",
"notices"}``). Exit codes: 0 compacted (or undone), 1 the compaction failed and the conversation is unchanged
(the provider failed, a PreCompact hook halted it), 2 bad usage (no such conversation, history off, a bad
config file), 3 nothing to do (too few turns to compact, no compaction to undo).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from desktop_app.paths import HOME_ENV, app_paths

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NOTHING = 0, 1, 2, 3


def add_compact_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    compact = sub.add_parser(
        "compact", help="Summarise a stored conversation's older turns (undo with --undo); nothing is deleted."
    )
    compact.add_argument("--conversation", required=True, metavar="ID|last", help="the conversation (last: latest)")
    compact.add_argument("--undo", action="store_true", help="undo the compaction in force instead")
    compact.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    compact.add_argument("--base-url", help="OpenAI-compatible base URL (default: the configured provider)")
    compact.add_argument("--model", help="model name (default: the configured model)")
    compact.add_argument("--api-key-env", metavar="VAR", help="read the API key from this environment variable")
    compact.add_argument("--dialect", choices=["openai", "deepseek", "anthropic"], help="wire dialect")
    compact.add_argument("--home", type=Path, metavar="DIR", help=f"keep all files under DIR (like ${HOME_ENV})")


def _provider(ns: argparse.Namespace, settings: Any) -> Any:
    from desktop_app.runtime.settings import infer_dialect

    updates: dict[str, object] = {}
    for field in ("base_url", "model", "api_key_env", "dialect"):
        if getattr(ns, field):
            updates[field] = getattr(ns, field)
    if ns.base_url and not ns.dialect:
        updates["dialect"] = infer_dialect(ns.base_url)
    provider = settings.provider.model_copy(update=updates)
    return provider if provider.model else provider.model_copy(update={"model": "default"})


async def compact_command(ns: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from desktop_app.assembly import assemble
    from desktop_app.cli.conversations import UnknownConversation, continue_conversation, resolve_conversation
    from desktop_app.cli.terminal import terminal_safe
    from desktop_app.runtime import events as ev
    from desktop_app.runtime.compaction.compactor import CompactionError
    from desktop_app.runtime.compaction.plan import describe
    from desktop_app.runtime.settings import load_settings

    paths = app_paths(ns.home).ensure()
    settings = load_settings(paths.settings_file)
    provider = _provider(ns, settings)
    if ns.api_key_env and not os.environ.get(ns.api_key_env):
        err.write(f"switchboard: environment variable {ns.api_key_env} is not set\n")
        return EXIT_USAGE
    built = assemble(paths, strict=True, settings=settings.model_copy(update={"provider": provider}))
    runtime = built.runtime
    seen: list[ev.Event] = []
    runtime.subscribe(seen.append)
    try:
        if built.store is None:
            raise UnknownConversation("conversation history is off, so there is nothing to compact")
        conversation = resolve_conversation(built.store, ns.conversation)
        continue_conversation(runtime, built.store, conversation)
        if not ns.undo and not provider.base_url:
            err.write("switchboard: no provider configured; pass --base-url (and --model) or set one in the app\n")
            return EXIT_USAGE
        tokens_before = runtime.context_budget(conversation).total
        try:
            mark = runtime.undo_compaction(conversation) if ns.undo else await runtime.compact(conversation)
        except CompactionError as exc:
            err.write(f"switchboard: {terminal_safe(str(exc))}\n")
            return EXIT_NOTHING if exc.code in ("nothing_to_compact", "nothing_to_undo") else EXIT_FAILED
        tokens_after = runtime.context_budget(conversation).total
    except UnknownConversation as exc:
        err.write(f"switchboard: {exc}\n")
        return EXIT_USAGE
    finally:
        await built.aclose()
    done = [e for e in seen if isinstance(e, ev.ConversationCompacted)]
    notices = [n.model_dump(mode="json") for e in done for n in e.notices]
    if done:
        tokens_before, tokens_after = done[-1].tokens_before, done[-1].tokens_after
    if ns.json:
        data = {
            "conversation_id": conversation,
            "action": "undone" if ns.undo else "compacted",
            "compaction": describe(mark),
            "tokens_before": tokens_before,
            "tokens_after": tokens_after,
            "notices": notices,
        }
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return EXIT_OK
    if ns.undo:
        out.write(
            f"Undid the compaction of conversation {conversation}: the next request sends the full history "
            f"again (~{tokens_after:,} tokens).\n"
        )
        return EXIT_OK
    out.write(
        f"Compacted conversation {conversation}: {mark.summarised} earlier messages ({mark.turns} turns) are "
        f"sent as a summary; the next request ~{tokens_before:,} → ~{tokens_after:,} tokens. "
        f"Undo: switchboard compact --conversation {conversation} --undo\n"
    )
    for notice in notices:
        out.write(f"  hook: {terminal_safe(str(notice.get('message', '')))}\n")
    return EXIT_OK
