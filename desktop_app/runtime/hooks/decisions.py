"""Hook decisions: reading a hook's JSON answer, the decision of one run, and the report of a chain.

Whale's rules (``seed-behaviours.md`` §1.7): the process gives a base decision (spawn error, timeout,
exit 0 pass, exit 2 block on a blocking event, other exits warn); a JSON ``decision`` overrides it unless
the hook timed out or could not be spawned; ``block`` on a non-blocking event becomes ``warn``.
Switchboard differs in one point: any other non-zero exit (and unreadable JSON) is ``error``, so a hook
that crashes fails closed on a blocking event instead of only warning; on other events it is shown. A chain is
blocked by any block or halt, and, on a blocking event, by any timeout or error (fail-closed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from desktop_app.runtime.hooks.model import BLOCKING_EVENTS

Decision = Literal["pass", "warn", "block", "halt", "error", "timeout"]

_DECISIONS: dict[str, Decision] = {
    "": "pass",
    "pass": "pass",
    "none": "pass",
    "continue": "pass",
    "allow": "pass",
    "approve": "pass",
    "approved": "pass",
    "warn": "warn",
    "warning": "warn",
    "block": "block",
    "deny": "block",
    "denied": "block",
    "halt": "halt",
    "stop": "halt",
    "error": "error",
}
OUTPUT_CAP = 256 * 1024


@dataclass
class HookAnswer:
    """What a hook said in JSON (stdout, an HTTP body or a tool result); every field may be absent."""

    decision: Decision | None = None
    message: str = ""
    additional_context: str = ""
    updated_input: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    system_message: str = ""
    """Claude Code's ``systemMessage``: shown to the user (a notice), never to the model."""
    suppress_output: bool = False
    allow: bool = False
    """A PermissionRequest hook approved the call (Claude Code's ``decision.behavior: "allow"``)."""
    unsupported: str = ""
    """Something the hook asked for that Switchboard cannot do here (shown in a notice)."""


def _first_text(data: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def parse_answer(text: str) -> HookAnswer | None:
    """Parse a hook's output: only text that (trimmed) starts with ``{`` and is a JSON object counts."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        data = json.loads(stripped)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    return answer_from_object(data)


def answer_from_object(data: dict[str, Any]) -> HookAnswer:
    """The answer fields of a JSON object, with Whale's aliases."""
    answer = HookAnswer()
    raw = data.get("decision")
    if isinstance(raw, str):
        answer.decision = _DECISIONS.get(raw.strip().lower())
    answer.message = _first_text(data, "reason", "message", "systemMessage")
    answer.additional_context = _first_text(data, "additional_context", "additionalContext", "context")
    for key in ("updated_input", "updatedInput"):
        if key in data and data[key] is not None:
            value = data[key]
            answer.updated_input = value.strip() if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
            break
    metadata = data.get("metadata")
    if isinstance(metadata, dict):
        answer.metadata = metadata
    return answer


@dataclass
class HookOutcome:
    """One hook's run: its decision and what it said (stdout/stderr capped at 256 KiB each)."""

    hook: str
    """The hook's label (see ``LifecycleHook.label``)."""
    decision: Decision
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    truncated: bool = False
    answer: HookAnswer | None = None

    @property
    def message(self) -> str:
        return self.answer.message if self.answer is not None else ""

    @property
    def additional_context(self) -> str:
        return self.answer.additional_context if self.answer is not None else ""

    @property
    def updated_input(self) -> str:
        return self.answer.updated_input if self.answer is not None else ""

    @property
    def failed(self) -> bool:
        """The hook itself did not work: timed out, could not start, errored or exited non-zero."""
        return self.decision in ("error", "timeout") or (
            self.decision == "warn" and self.exit_code not in (None, 0, 2) and not self.message
        )

    def explanation(self) -> str:
        """Whale's order: the message, else stderr, else stdout, else the additional context."""
        for text in (self.message, self.stderr, self.stdout, self.additional_context):
            if text.strip():
                return text.strip()
        return ""


def process_decision(
    event: str,
    *,
    spawn_error: bool,
    timed_out: bool,
    exit_code: int | None,
    answer: HookAnswer | None,
) -> Decision:
    """The decision of one command hook (see the module docstring), already normalised."""
    base: Decision
    if spawn_error:
        base = "error"
    elif timed_out:
        base = "timeout"
    elif exit_code == 0:
        base = "pass"
    elif exit_code == 2:
        base = "block"  # only a warning on a non-blocking event (normalise)
    else:
        base = "error"  # Switchboard: a crashing hook fails closed on a blocking event (Whale: warn)
    if not spawn_error and not timed_out and answer is not None and answer.decision is not None:
        base = answer.decision
    return normalise(event, base)


def normalise(event: str, decision: Decision) -> Decision:
    """``block`` on a non-blocking event is only a warning."""
    if decision == "block" and event not in BLOCKING_EVENTS:
        return "warn"
    return decision


def cap(text: bytes) -> tuple[str, bool]:
    """Decode output, keeping at most 256 KiB; whether it was cut."""
    cut = len(text) > OUTPUT_CAP
    return text[:OUTPUT_CAP].decode("utf-8", errors="replace"), cut


@dataclass
class HookReport:
    """The result of running every matching hook of one event, in order."""

    event: str
    outcomes: list[HookOutcome] = field(default_factory=list)
    ran: int = 0

    @property
    def blocked(self) -> bool:
        """Any block or halt, or, on a blocking event, any timeout or error (fail-closed)."""
        for outcome in self.outcomes:
            if outcome.decision in ("block", "halt"):
                return True
            if self.event in BLOCKING_EVENTS and outcome.decision in ("timeout", "error"):
                return True
        return False

    @property
    def halted(self) -> bool:
        return any(outcome.decision == "halt" for outcome in self.outcomes)

    @property
    def blocking_outcome(self) -> HookOutcome | None:
        """The hook that blocked (the last one run, since the chain stops there)."""
        return self.outcomes[-1] if self.blocked and self.outcomes else None

    @property
    def additional_context(self) -> str:
        return "\n".join(o.additional_context for o in self.outcomes if o.additional_context)

    @property
    def updated_input(self) -> str:
        """The last non-empty ``updated_input`` (each one was already applied to the next hook's payload)."""
        values = [o.updated_input for o in self.outcomes if o.updated_input]
        return values[-1] if values else ""

    @property
    def metadata(self) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for outcome in self.outcomes:
            if outcome.answer is not None:
                merged.update(outcome.answer.metadata)
        return merged

    @property
    def failures(self) -> list[HookOutcome]:
        """Hooks that did not work (shown to the user; on a non-blocking event the run goes on)."""
        return [o for o in self.outcomes if o.failed]

    @property
    def warnings(self) -> list[HookOutcome]:
        return [o for o in self.outcomes if o.decision == "warn"]

    def block_message(self) -> str:
        """What the user and the model read for a blocked event: which hook, and why."""
        verb = "halted" if self.halted else "blocked"
        outcome = self.blocking_outcome
        if outcome is None:
            return f"{verb} by {self.event} hook"
        why = outcome.explanation()
        if outcome.decision == "timeout" and not why:
            why = "the hook timed out"
        text = f"{verb.capitalize()} by {self.event} hook {outcome.hook}"
        return f"{text}: {why}" if why else text
