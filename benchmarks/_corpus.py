"""Stored conversations for the benchmarks, written through the ``Store`` API (so schema changes follow).

Text is chat-like: sentences from ``fts_search``'s word mix, answers with a fenced code block or a list now
and then, so the chat view renders what it renders for real.
"""

from __future__ import annotations

import random

from benchmarks.fts_search import paragraph
from desktop_app.runtime.store import Store


def answer(rng: random.Random) -> str:
    text = paragraph(rng, (2, 6))
    roll = rng.random()
    if roll < 0.15:
        text += "\n\n```python\ndef f(x):\n    return x * 2\n```\n"
    elif roll < 0.3:
        text += "\n\n" + "\n".join(f"- {paragraph(rng, (1, 1))}" for _ in range(3))
    return text


def fill_conversation(store: Store, conversation_id: str, messages: int, rng: random.Random, title: str = "") -> None:
    """One conversation of ``messages`` alternating user/assistant messages, one finished run per pair."""
    with store.transaction():
        store.create_conversation(conversation_id, title=title or f"Benchmark {conversation_id}", model="m")
        run_id = ""
        for position in range(messages):
            role = "user" if position % 2 == 0 else "assistant"
            if role == "user":
                run_id = f"{conversation_id}-r{position}"
                store.start_run(run_id, conversation_id)
                store.set_run_status(run_id, "finished", ended=True, reason="end_turn")
            message_id = store.add_message(conversation_id, role, run_id=run_id, status="complete")
            text = paragraph(rng, (1, 2)) if role == "user" else answer(rng)
            store.add_part(message_id, "text", text, index=True)
