"""What ``switchboard ask`` prints and asks on the terminal: the answer stream, events as JSONL, approvals,
and the requests MCP servers send to the user (sampling, elicitation).

Without a terminal (stdin not a TTY) every question is declined with a reason, so scripts never hang.

Text from the model, tools and servers is printed through :func:`terminal_safe`: control characters (ESC
and the rest of C0/C1 but newline and tab, a lone CR) and bidi overrides are shown as visible escapes, so
nothing printed can move the cursor, retitle the window, hide text or rewrite what the user reads. Only
``--events jsonl`` prints raw text, inside JSON strings (which escape control characters themselves).
An incomplete run (token limit, content filter, tool-round limit) gets a notice on stderr.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, TextIO

from desktop_app.runtime import events as ev

if TYPE_CHECKING:
    from desktop_app.runtime.service import Runtime

NO_TERMINAL = "no terminal to ask; use --approve always or never"

_UNSAFE = re.compile(r"\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every control sequence neutralised: ESC becomes the four characters ``\\x1b``, etc."""
    return _UNSAFE.sub(_escape, text)


INCOMPLETE_NOTICES = {
    "max_tokens": "the answer hit the model's token limit and is cut short; raise max_tokens or ask it to go on",
    "content_filter": "the provider's content filter stopped the answer; it is incomplete",
    "tool_round_limit": "stopped after the tool-round limit; the task may be unfinished "
    "(raise max_tool_rounds in settings, or continue in the app)",
}
"""What the CLI says on stderr when a run ends incomplete, by ``RunFinished.reason``."""


class TextPrinter:
    """Default output: the answer streams to stdout, reasoning and notices to stderr."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self._out, self._err = out, err
        self._in_reasoning = False

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.ReasoningDelta):
            self._err.write(terminal_safe(event.text))
            self._err.flush()
            self._in_reasoning = True
            return
        if self._in_reasoning:
            self._err.write("\n")
            self._in_reasoning = False
        if isinstance(event, ev.ContentDelta):
            self._out.write(terminal_safe(event.text))
            self._out.flush()
        elif isinstance(event, ev.ToolCall):
            self._err.write(terminal_safe(f"[tool] {event.server}/{event.tool} {event.arguments}") + "\n")
        elif isinstance(event, ev.ToolResult):
            mark = "error" if event.is_error else "result"
            self._err.write(f"[{mark}] {terminal_safe(event.text[:2000])}\n")
            for notice in event.hooks:  # what a hook asked to show the user (systemMessage), or warned
                if notice.kind == "warning":
                    self._err.write(f"[hook] {terminal_safe(notice.message)}\n")
        elif isinstance(event, ev.HookNoticeEvent):
            self._err.write(f"[hook] {terminal_safe(event.notice.message)}\n")
        elif isinstance(event, ev.RetryScheduled):
            r = event.retry
            self._err.write(f"[retry] {r.reason}; attempt {r.attempt} of {r.max_attempts} in {r.delay_s:g} s\n")
        elif isinstance(event, ev.ImagesDescribed):
            self._err.write(terminal_safe(f"[vision] {event.model} described {', '.join(event.images)}") + "\n")
        elif isinstance(event, ev.Error):
            self._err.write(f"error: {terminal_safe(event.message)}\n")
        elif isinstance(event, ev.ConversationCompacted):
            self._err.write(
                f"[compacted] {event.summarised} earlier messages summarised; the request "
                f"~{event.tokens_before:,} → ~{event.tokens_after:,} tokens\n"
            )
        elif isinstance(event, ev.CompactionFailed):
            self._err.write(f"[compaction failed] {terminal_safe(event.message)}\n")
        elif isinstance(event, ev.RunFinished):
            self._out.write("\n")
            self._out.flush()


class RunEnd:
    """Remembers how the run ended and prints a notice on stderr for an incomplete one (in every mode)."""

    def __init__(self, err: TextIO) -> None:
        self._err = err
        self.reason: str | None = None

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.RunFinished):
            self.reason = event.reason
            notice = INCOMPLETE_NOTICES.get(event.reason)
            if notice:
                self._err.write(f"switchboard: incomplete: {notice}\n")
                self._err.flush()


class JsonlPrinter:
    """``--events jsonl``: every run event exactly as the runtime emits it, one JSON object per line."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def __call__(self, event: ev.Event) -> None:
        self._out.write(event.model_dump_json() + "\n")
        self._out.flush()


class TerminalApprover:
    """``--approve ask``: tool approvals, sampling and elicitation asked on the terminal, one at a time."""

    def __init__(self, runtime: Runtime, out: TextIO) -> None:
        self._runtime = runtime
        self._out = out
        self._tasks: set[asyncio.Task[None]] = set()
        self._lock = asyncio.Lock()  # one question at a time on the terminal

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.ApprovalRequired):
            self._spawn(self._approve(event))

    def on_host_event(self, event: ev.HostEvent) -> None:
        if isinstance(event, ev.SamplingRequested):
            self._spawn(self._sampling(event))
        elif isinstance(event, ev.ElicitationRequested):
            self._spawn(self._elicitation(event))

    @staticmethod
    def _has_terminal() -> bool:
        return bool(sys.stdin) and sys.stdin.isatty()

    async def _ask_line(self, question: str) -> str:
        self._out.write(question)
        self._out.flush()
        line: str = await asyncio.to_thread(sys.stdin.readline)
        return line.strip()

    async def _approve(self, event: ev.ApprovalRequired) -> None:
        if not self._has_terminal():
            self._runtime.answer(event.tool_call_id, approved=False, reason=NO_TERMINAL, source="policy")
            return
        args = json.dumps(event.arguments, ensure_ascii=False)
        async with self._lock:
            line = await self._ask_line(terminal_safe(f"\nAllow {event.server}/{event.tool} {args}? [y/N] "))
        approved = line.lower() in {"y", "yes"}
        self._runtime.answer(
            event.tool_call_id, approved=approved, reason=None if approved else "denied on the terminal"
        )

    async def _sampling(self, event: ev.SamplingRequested) -> None:
        if not self._has_terminal():
            self._runtime.answer_sampling(event.request_id, False, NO_TERMINAL)
            return
        last = event.messages[-1].text if event.messages else ""
        async with self._lock:
            line = await self._ask_line(
                terminal_safe(
                    f"\nMCP server '{event.server}' wants to use your model ({len(event.messages)} message(s), "
                    f"last: {last[:200]!r}). Allow? [y/N] "
                )
            )
        approved = line.lower() in {"y", "yes"}
        self._runtime.answer_sampling(event.request_id, approved, None if approved else "declined on the terminal")

    async def _elicitation(self, event: ev.ElicitationRequested) -> None:
        if not self._has_terminal():
            self._runtime.answer_elicitation(event.request_id, "decline")
            return
        async with self._lock:
            self._out.write(terminal_safe(f"\nMCP server '{event.server}' asks: {event.message}") + "\n")
            if event.mode == "url":
                line = await self._ask_line(terminal_safe(f"Open {event.url}? [y/N] "))
                self._runtime.answer_elicitation(
                    event.request_id, "accept" if line.lower() in {"y", "yes"} else "decline"
                )
                return
            content = await self._fill_form(event.requested_schema or {})
        if content is None:
            self._runtime.answer_elicitation(event.request_id, "decline")
        else:
            self._runtime.answer_elicitation(event.request_id, "accept", content)

    async def _fill_form(self, schema: dict[str, Any]) -> dict[str, Any] | None:
        """Ask each field in turn; an empty answer to the first question declines the whole request."""
        properties: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", []))
        content: dict[str, Any] = {}
        for index, (name, spec) in enumerate(properties.items()):
            kind = spec.get("type", "string")
            hint = f" ({'/'.join(map(str, spec['enum']))})" if "enum" in spec else f" [{kind}]"
            optional = "" if name in required else ", optional"
            title = spec.get("title") or spec.get("description") or name
            raw = await self._ask_line(
                terminal_safe(f"  {title}{hint}{optional}{' (empty declines)' if index == 0 else ''}: ")
            )
            if not raw:
                if index == 0:
                    return None
                continue
            content[name] = _coerce(raw, kind)
        return content


def _coerce(raw: str, kind: str) -> Any:
    if kind == "boolean":
        return raw.lower() in {"y", "yes", "true", "1"}
    if kind in {"integer", "number"}:
        try:
            return int(raw) if kind == "integer" else float(raw)
        except ValueError:
            return raw  # the runtime validates against the schema and says what is wrong
    return raw
