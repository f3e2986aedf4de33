"""Tool-result replay compaction: an oversized tool result goes to the model as a head/tail digest.

Only the *request* is compacted: the store, the events and the UI keep the full result. The decision is
made once, when the result is recorded (``replay_limit``: the limit in force then, kept on the
``ToolMessage`` and stored with the result), and the digest is a pure function of the content and that
limit, so every later request, in this process or after a reopen, repeats it byte for byte and the prompt
prefix stays cache-stable even when the setting changes later (spec §1.1, compacted tool-result digests).
"""

from __future__ import annotations

HEAD_SHARE = 2 / 3
"""Of the limit, this share is the head of the result; the rest is its tail."""


def replay_limit_for(content: str, limit: int) -> int:
    """The ``replay_limit`` a new result gets: ``limit`` when it is longer than that, else 0 (verbatim)."""
    return limit if limit > 0 and len(content) > limit else 0


def digest(content: str, limit: int) -> str:
    """``content`` as the model gets it: verbatim when it fits ``limit`` (or ``limit`` is 0), else its first
    and last characters around a line that says how much was left out and that the result was compacted."""
    if limit <= 0 or len(content) <= limit:
        return content
    head_len = int(limit * HEAD_SHARE)
    tail_len = limit - head_len
    head, tail = content[:head_len], content[len(content) - tail_len :]
    omitted = len(content) - head_len - tail_len
    return (
        f"[tool result compacted for model replay: {len(content):,} characters, the first {head_len:,} and the "
        f"last {tail_len:,} are shown; the user sees the full result]\n"
        f"{head}\n[… {omitted:,} characters omitted …]\n{tail}"
    )
