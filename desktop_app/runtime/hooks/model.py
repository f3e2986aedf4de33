"""The hook data model: lifecycle events, hook definitions, where a hook came from, and the stdin payload.

Lifecycle hooks follow Whale (``seed-behaviours.md`` §1.7): the event names and their fixed order, which
events block, and the one-line JSON payload whose keys come in a fixed order (``event`` and ``cwd`` always,
every other key only when it is not empty). Nothing here runs anything.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from desktop_app.runtime.model_defaults import empty_list

EVENTS: tuple[str, ...] = (
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "PostCompact",
    "SessionStart",
    "UserPromptSubmit",
    "SubagentStart",
    "SubagentStop",
    "Stop",
)
"""Every lifecycle event, in Whale's order (hooks of one file run grouped in this order)."""

BLOCKING_EVENTS = frozenset({"PreToolUse", "PermissionRequest", "UserPromptSubmit", "SubagentStart"})
"""Events a hook can stop: exit code 2 blocks them, and a timeout or a spawn error fails them closed."""

TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse"})
"""The only events ``match`` applies to."""

HookType = Literal["command", "http", "mcp"]
HookFormat = Literal["whale", "claude"]
SourceKind = Literal["user", "mcp-config", "project", "plugin", "imported"]
TRUSTED_SOURCES = frozenset({"user", "mcp-config"})
"""Sources trusted by default: the user's own settings and mcp.json (including a ``--mcp-config`` file)."""

DEFAULT_TIMEOUT_S = 600.0
MIN_TIMEOUT_S = 1.0


def effective_timeout(value: float | None) -> float:
    """Whale's rule: a missing or non-positive timeout means 600 s; anything shorter than 1 s is 1 s."""
    if value is None or value <= 0:
        return DEFAULT_TIMEOUT_S
    return max(MIN_TIMEOUT_S, float(value))


def claude_matches(matcher: str | None, names: tuple[str, ...]) -> bool:
    """Claude Code's matcher rule: empty or ``*`` matches all; otherwise a regular expression that must match one
    of ``names`` whole (``Bash``, ``Edit|Write``, ``mcp__github__.*``); an invalid one never matches."""
    pattern = (matcher or "").strip()
    if not pattern or pattern == "*":
        return True
    try:
        compiled = re.compile(f"(?:{pattern})")
    except re.error:
        return False
    return any(name and compiled.fullmatch(name) for name in names)


class HookDef(BaseModel):
    """One lifecycle hook as written in a config file (``hooks.<Event>[]``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)

    type: HookType = "command"
    command: str | None = None
    url: str | None = None
    target: str | None = Field(default=None, description="server/tool, for type mcp")
    match: str | None = None
    timeout: float | None = Field(default=None, description="seconds; <= 0 or missing: 600, minimum 1")
    description: str | None = None
    shell: str | None = None
    cwd: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    allowed_env_vars: list[str] = Field(default_factory=empty_list, alias="allowedEnvVars")
    format: HookFormat = Field(
        default="whale", description="claude: Claude Code's input, output and exit codes (see hooks/claude.py)"
    )

    @field_validator("type", mode="before")
    @classmethod
    def _shell_is_command(cls, value: Any) -> Any:
        return "command" if value in ("shell", None, "") else value

    @property
    def runnable(self) -> bool:
        """A command hook needs ``command``, an http hook ``url``, an mcp hook a ``server/tool`` target."""
        if self.type == "command":
            return bool(self.command and self.command.strip())
        if self.type == "http":
            return bool(self.url and self.url.strip())
        return bool(self.target and "/" in self.target.strip("/"))

    @property
    def body(self) -> str:
        """The full command, URL or target: what the review screen shows and what trust is about."""
        if self.type == "command":
            return self.command or ""
        if self.type == "http":
            return self.url or ""
        return self.target or ""


@dataclass(frozen=True)
class HookSource:
    """Where a hook was read from. ``kind`` decides default trust; ``path`` names the file."""

    kind: SourceKind
    path: Path | None = None
    folder: Path | None = None
    """The plugin's own folder (``plugin``: ``CLAUDE_PLUGIN_ROOT``) or the project folder (``project``:
    ``CLAUDE_PROJECT_DIR``)."""

    @property
    def trusted_by_default(self) -> bool:
        return self.kind in TRUSTED_SOURCES

    def short(self) -> str:
        """``project · hooks.json``: the kind and the file name (the full path is in :meth:`describe`)."""
        label = self.describe().split(" (")[0]
        return f"{label} · {self.path.name}" if self.path is not None else label

    def describe(self) -> str:
        names = {
            "user": "your settings",
            "mcp-config": "mcp.json",
            "project": "project",
            "plugin": "plugin",
            "imported": "imported file",
        }
        label = names[self.kind]
        return f"{label} ({self.path})" if self.path is not None else label


@dataclass(frozen=True)
class LifecycleHook:
    """A lifecycle hook bound to its event, source and position (its ordinal among the event's hooks)."""

    event: str
    definition: HookDef
    source: HookSource
    ordinal: int

    @property
    def label(self) -> str:
        """How notices and errors name the hook: its description, else its type and body."""
        if self.definition.description:
            return self.definition.description
        body = self.definition.body
        short = body if len(body) <= 60 else body[:57] + "..."
        return f"{self.definition.type} hook '{short}'"

    def matches(self, tool_name: str, *, claude_name: str = "", subject: str = "") -> bool:
        """``match`` is an anchored full match on the tool name, for PreToolUse/PostToolUse only.

        Empty or ``*`` matches everything; an invalid pattern never matches. A Claude Code hook's matcher also
        matches Claude Code's name of an equivalent tool (``claude_name``), applies to PermissionRequest too,
        and on SessionStart/PreCompact/Subagent events to their ``subject`` (hooks/claude.py).
        """
        if self.definition.format == "claude":
            if self.event in (*TOOL_EVENTS, "PermissionRequest"):
                return claude_matches(self.definition.match, (tool_name, claude_name))
            return not subject or claude_matches(self.definition.match, (subject,))
        if self.event not in TOOL_EVENTS:
            return True
        pattern = (self.definition.match or "").strip()
        if not pattern or pattern == "*":
            return True
        try:
            return re.fullmatch(f"(?:{pattern})", tool_name) is not None
        except re.error:
            return False


ToolOutcomeName = Literal["success", "no_result", "failure", "timeout", "cancelled", "blocked"]


@dataclass
class HookPayload:
    """The JSON object a hook reads on stdin (one line). Empty fields are left out, except ``event``/``cwd``.

    ``tool_call`` keeps Whale's capitalised keys ``ID``, ``Name`` and ``Input`` (the arguments as JSON text).
    """

    event: str
    cwd: str = ""
    session_id: str = ""
    tool_name: str = ""
    tool_args: Any = None
    tool_result: str = ""
    tool_outcome: str = ""
    tool_error_code: str = ""
    prompt: str = ""
    last_assistant_text: str = ""
    turn: int = 0
    tool_call_id: str = ""
    approval_reason: str = ""
    approval_code: str = ""
    compact_summary: str = ""
    messages_before: int = 0
    messages_after: int = 0
    subagent_role: str = ""
    subagent_model: str = ""
    subagent_summary: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    mcp_tool: str = ""
    """The tool's own name on its server (not sent: Claude Code hooks see an equivalent tool by Claude's name)."""

    def to_dict(self) -> dict[str, Any]:
        """The payload as an ordered dict, in Whale's key order."""
        out: dict[str, Any] = {"event": self.event, "cwd": self.cwd}
        for key in ("session_id", "tool_name"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.tool_args not in (None, "", {}):
            out["tool_args"] = self.tool_args
        for key in ("tool_result", "tool_outcome", "tool_error_code", "prompt", "last_assistant_text", "turn"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.tool_name or self.tool_call_id:
            args = self.tool_args if self.tool_args is not None else {}
            out["tool_call"] = {
                "ID": self.tool_call_id,
                "Name": self.tool_name,
                "Input": json.dumps(args, separators=(",", ":"), ensure_ascii=False),
            }
        for key in (
            "approval_reason",
            "approval_code",
            "compact_summary",
            "messages_before",
            "messages_after",
            "subagent_role",
            "subagent_model",
            "subagent_summary",
        ):
            if getattr(self, key):
                out[key] = getattr(self, key)
        out.update(self.extra)
        return out

    def to_line(self) -> bytes:
        """The stdin line: compact JSON and a trailing newline."""
        return (json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")

    def http_body(self, env: dict[str, str]) -> dict[str, Any]:
        """What an http hook is POSTed: Whale's ``{"payload": …, "env": {…}}``."""
        return {"payload": self.to_dict(), "env": env}


PLUGIN_ROOT_VARIABLES = ("CLAUDE_PLUGIN_ROOT", "WHALE_PLUGIN_ROOT")


def hook_variables(source: HookSource, cwd: Path | None) -> dict[str, str]:
    """The variables a hook's process gets besides the minimal environment: ``CLAUDE_PLUGIN_ROOT`` and
    ``WHALE_PLUGIN_ROOT`` (a plugin's hooks: the installed plugin's folder) and ``CLAUDE_PROJECT_DIR`` (the
    project a project hook came from, else the folder hooks run in)."""
    found: dict[str, str] = {}
    if source.kind == "plugin" and source.folder is not None:
        found = dict.fromkeys(PLUGIN_ROOT_VARIABLES, str(source.folder))
    project = source.folder if source.kind == "project" and source.folder is not None else cwd
    if project is not None:
        found["CLAUDE_PROJECT_DIR"] = str(project)
    return found


# Typed constructors for the events later features fire (compaction, sub-agents): they only call the runner.


def pre_compact_payload(*, session_id: str, cwd: str, messages_before: int) -> HookPayload:
    """PreCompact: fired before a conversation is compacted; ``additional_context`` goes into compaction."""
    return HookPayload(event="PreCompact", cwd=cwd, session_id=session_id, messages_before=messages_before)


def post_compact_payload(
    *, session_id: str, cwd: str, summary: str, messages_before: int, messages_after: int
) -> HookPayload:
    """PostCompact: fired after compaction with the summary and the message counts."""
    return HookPayload(
        event="PostCompact",
        cwd=cwd,
        session_id=session_id,
        compact_summary=summary,
        messages_before=messages_before,
        messages_after=messages_after,
    )


def subagent_start_payload(*, session_id: str, cwd: str, role: str, model: str, prompt: str) -> HookPayload:
    """SubagentStart (blocking): an agent is about to be started with ``prompt``."""
    return HookPayload(
        event="SubagentStart",
        cwd=cwd,
        session_id=session_id,
        tool_name="spawn_subagent",
        prompt=prompt,
        subagent_role=role,
        subagent_model=model,
    )


def subagent_stop_payload(*, session_id: str, cwd: str, role: str, model: str, summary: str) -> HookPayload:
    """SubagentStop: an agent finished; ``summary`` is its final answer."""
    return HookPayload(
        event="SubagentStop",
        cwd=cwd,
        session_id=session_id,
        tool_name="spawn_subagent",
        subagent_role=role,
        subagent_model=model,
        subagent_summary=summary,
    )
