"""The conversation as a Claude Code transcript: the JSONL file a Claude Code hook finds at ``transcript_path``.

Claude Code writes one JSON object a line: ``{"type": "user"|"assistant", "message": {"role": …, "content": …},
"sessionId", "uuid", "parentUuid", "cwd", "timestamp"}``; an assistant's tool calls are ``tool_use`` blocks and
their results ``tool_result`` blocks of the next user line. :class:`Transcripts` writes that file for a
conversation just before a Claude Code hook of it runs (``<data>/hooks/transcripts/<conversation>-<n>.jsonl``,
owner only), from the messages the runtime holds, known secrets masked, and removes it when the hook is done
(the conversation is kept in the store, nowhere else). Without a conversation (a call from outside a
run) the hook gets an empty ``transcript_path``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

MessagesOf = Callable[[str], Sequence[Any]]
"""The messages of a conversation by its id (``()`` for an unknown one)."""

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def transcript_lines(session: str, messages: Sequence[Any], cwd: str) -> list[dict[str, Any]]:
    """Claude Code's transcript lines for ``messages`` (system messages are not part of a transcript)."""
    from desktop_app.runtime.redaction import redact_known

    lines: list[dict[str, Any]] = []
    parent: str | None = None
    stamp = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    for index, message in enumerate(messages):
        role = getattr(message, "role", "")
        content: Any
        if role == "user":
            kind, content = "user", redact_known(message.content)
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            if message.content:
                blocks.append({"type": "text", "text": redact_known(message.content)})
            for call in message.tool_calls:
                try:
                    arguments = json.loads(call.arguments or "{}")
                except ValueError:
                    arguments = {}
                blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": arguments})
            kind, content = "assistant", blocks
        elif role == "tool":
            kind = "user"
            content = [
                {
                    "type": "tool_result",
                    "tool_use_id": message.tool_call_id,
                    "content": redact_known(message.content),
                    "is_error": bool(message.is_error),
                }
            ]
        else:
            continue
        line_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"switchboard:{session}:{index}"))
        lines.append(
            {
                "type": kind,
                "sessionId": session,
                "uuid": line_id,
                "parentUuid": parent,
                "cwd": cwd,
                "timestamp": stamp,
                "message": {"role": "assistant" if kind == "assistant" else "user", "content": content},
            }
        )
        parent = line_id
    return lines


class Transcripts:
    """Writes a conversation's transcript for its Claude Code hooks (see the module docstring)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self.messages_of: MessagesOf | None = None
        """Set by the runtime: where the conversation's messages come from."""

    def _folder(self) -> Path:
        if self.folder is not None:
            return self.folder
        user = getattr(os, "getuid", lambda: 0)()
        return Path(tempfile.gettempdir()) / f"switchboard-{user}-transcripts"

    def path_for(self, session: str, cwd: str = "") -> str:
        """Write ``session``'s transcript now and return its path (``""`` without a session)."""
        if not session:
            return ""
        messages = self.messages_of(session) if self.messages_of is not None else ()
        folder = self._folder()
        path = folder / f"{_SAFE.sub('_', session)}-{uuid.uuid4().hex[:8]}.jsonl"
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in transcript_lines(session, messages, cwd))
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError:
            return ""
        return str(path)

    @staticmethod
    def discard(path: str) -> None:
        """Remove a transcript once its hook is done: the conversation stays in the store only."""
        if path:
            with contextlib.suppress(OSError):
                os.unlink(path)


__all__ = ["MessagesOf", "Transcripts", "transcript_lines"]
