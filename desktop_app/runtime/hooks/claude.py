"""Claude Code's hook dialect: what a Claude Code hook reads on stdin, and how its answer is read.

A hook is in this dialect when it came in Claude Code's shape (``{"matcher": …, "hooks": [{"type": "command",
…}]}`` groups: a Claude Code plugin's ``hooks/hooks.json``, a project's ``.claude/settings.json``); Whale's flat
hooks keep Whale's payload and rules (:mod:`.model`, :mod:`.decisions`). Following Claude Code's hooks reference:

* **Input** (:func:`claude_input`): ``session_id``, ``transcript_path`` (a JSONL transcript of the conversation,
  :mod:`.transcript`), ``cwd``, ``permission_mode`` and ``hook_event_name`` on every event, then per event:
  ``tool_name``/``tool_input``/``tool_use_id`` (PreToolUse, PermissionRequest, PostToolUse + ``tool_response``),
  ``prompt`` (UserPromptSubmit), ``source`` (SessionStart), ``stop_hook_active`` and ``last_assistant_message``
  (Stop, SubagentStop), ``agent_id``/``agent_type`` (SubagentStart/Stop), ``trigger``/``custom_instructions``
  (PreCompact) and ``compact_summary`` (PostCompact).
* **Exit codes** (:func:`claude_outcome`): 0 reads stdout (JSON, else plain text, which UserPromptSubmit and
  SessionStart add to the context); 2 blocks a blocking event with stderr as the reason (JSON is then
  ignored; PostToolUse gives stderr to the model); any other code is a non-blocking error shown to the user.
* **Output**: ``continue: false`` + ``stopReason`` (halts), ``suppressOutput``, ``systemMessage`` (shown to the
  user), ``decision: "block"`` + ``reason``, and ``hookSpecificOutput``: ``permissionDecision``
  (``allow``/``deny``/``ask``) + ``permissionDecisionReason`` and ``updatedInput`` (PreToolUse),
  ``decision.behavior``/``message``/``updatedInput``/``interrupt`` (PermissionRequest) and
  ``additionalContext`` (PreToolUse, PostToolUse, UserPromptSubmit, SessionStart, SubagentStart).
* **Tool names** (:data:`CLAUDE_TOOLS`): a matcher naming one of Claude Code's own tools matches Switchboard's
  equivalent (a server tool of that kind), and the hook reads Claude Code's name and field names
  (``file_path`` for ``path``); a Claude Code tool with no equivalent here never fires (:func:`matcher_note`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from desktop_app.runtime.hooks.decisions import Decision, HookAnswer, HookOutcome, normalise
from desktop_app.runtime.hooks.model import HookPayload

PERMISSION_MODE = "default"
"""Switchboard asks for approval per its policy; hooks are told Claude Code's default mode."""

CLAUDE_TOOLS: dict[str, tuple[str, ...]] = {
    "Bash": ("run_command", "execute_command", "run_shell_command", "shell_execute", "bash"),
    "Read": ("read_file", "read_text_file"),
    "Write": ("write_file",),
    "Edit": ("edit_file",),
    "Glob": ("search_files", "glob"),
    "Grep": ("grep", "search_code"),
    "LS": ("list_directory",),
    "WebFetch": ("fetch",),
    "WebSearch": ("web_search",),
    "Task": ("chat-with-*",),
    "Agent": ("chat-with-*",),
}
"""Claude Code's tool → the MCP tool names (of any server) that are its equivalent here. ``*`` ends a prefix
(``chat-with-*``: Switchboard's agents)."""

NO_EQUIVALENT = frozenset(
    {
        "MultiEdit",
        "NotebookEdit",
        "NotebookRead",
        "TodoWrite",
        "ExitPlanMode",
        "BashOutput",
        "KillShell",
        "KillBash",
        "SlashCommand",
        "Skill",
        "AskUserQuestion",
        "ListMcpResourcesTool",
        "ReadMcpResourceTool",
    }
)
"""Claude Code's tools Switchboard has nothing like: a matcher naming only these never fires here."""

FIELD_ALIASES: dict[str, dict[str, str]] = {
    "Read": {"file_path": "path"},
    "Write": {"file_path": "path"},
    "Edit": {"file_path": "path"},
    "Bash": {"command": "cmd"},
}
"""Claude Code's field name → the equivalent tool's, added to ``tool_input`` when only ours is there."""


def _name_matches(pattern: str, tool: str) -> bool:
    return tool.startswith(pattern[:-1]) if pattern.endswith("*") else tool == pattern


def claude_tool(tool: str) -> str:
    """Claude Code's name for the MCP tool ``tool`` (its own name, not the model-facing one), or ``""``."""
    for name, equivalents in CLAUDE_TOOLS.items():
        if name != "Agent" and any(_name_matches(pattern, tool) for pattern in equivalents):
            return name
    return ""


def claude_names(matcher: str) -> list[str]:
    """The Claude Code tool names a matcher can match (the ones it names literally, split at ``|``)."""
    known = {*CLAUDE_TOOLS, *NO_EQUIVALENT}
    return [part for part in (p.strip() for p in matcher.split("|")) if part in known]


def matcher_note(matcher: str) -> str:
    """What a matcher naming Claude Code's tools matches here, for the plugin's report (``""``: nothing to say)."""
    names = claude_names(matcher)
    if not names:
        return ""
    found = [f"{n} → {', '.join(CLAUDE_TOOLS[n])}" for n in names if n in CLAUDE_TOOLS]
    missing = [n for n in names if n in NO_EQUIVALENT]
    parts = []
    if found:
        parts.append("matches Switchboard's equivalents: " + "; ".join(found))
    if missing:
        never = "never fires here" if not found else "never fires for those"
        parts.append(f"{', '.join(missing)}: no such tool in Switchboard ({never})")
    return f"matcher '{matcher}': " + "; ".join(parts)


def tool_input(claude_name: str, arguments: Any) -> Any:
    """The arguments as Claude Code's hook reads them: Claude Code's field names added beside ours."""
    if not isinstance(arguments, dict):
        return arguments
    aliases = FIELD_ALIASES.get(claude_name, {})
    extra = {theirs: arguments[ours] for theirs, ours in aliases.items() if ours in arguments}
    extra = {theirs: value for theirs, value in extra.items() if theirs not in arguments}
    return {**arguments, **extra}


def updated_arguments(claude_name: str, original: Any, updated: dict[str, Any]) -> dict[str, Any]:
    """A hook's ``updatedInput`` in our field names (the aliases :func:`tool_input` added are mapped back)."""
    out = dict(updated)
    if not isinstance(original, dict):
        return out
    for theirs, ours in FIELD_ALIASES.get(claude_name, {}).items():
        if theirs != ours and theirs in out and theirs not in original and ours in original:
            out[ours] = out.pop(theirs)
    return out


def _tool_response(text: str) -> Any:
    """A tool's result as ``tool_response``: its JSON when it is JSON, else the text."""
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return json.loads(stripped)
        except ValueError:
            pass
    return text


def claude_input(payload: Any, *, transcript_path: str = "", tool_name: str = "") -> dict[str, Any]:
    """The stdin object of a Claude Code hook for ``payload`` (a :class:`~.model.HookPayload`).

    ``tool_name`` is the name the hook sees: Claude Code's for an equivalent tool, else the model-facing one."""
    event = payload.event
    data: dict[str, Any] = {
        "session_id": payload.session_id,
        "transcript_path": transcript_path,
        "cwd": payload.cwd,
        "permission_mode": PERMISSION_MODE,
        "hook_event_name": event,
    }
    name = tool_name or payload.tool_name
    if event in ("PreToolUse", "PostToolUse", "PermissionRequest"):
        data["tool_name"] = name
        data["tool_input"] = tool_input(name, payload.tool_args if payload.tool_args is not None else {})
        if event != "PermissionRequest":
            data["tool_use_id"] = payload.tool_call_id
        if event == "PostToolUse":
            data["tool_response"] = _tool_response(payload.tool_result)
    elif event == "UserPromptSubmit":
        data["prompt"] = payload.prompt
    elif event == "SessionStart":
        data["source"] = str(payload.extra.get("source", "startup"))
    elif event == "Stop":
        data["stop_hook_active"] = bool(payload.extra.get("stop_hook_active", False))
        data["last_assistant_message"] = payload.last_assistant_text
    elif event in ("SubagentStart", "SubagentStop"):
        data["agent_id"] = str(payload.extra.get("agent_id", payload.subagent_role))
        data["agent_type"] = payload.subagent_role
        if event == "SubagentStop":
            data["stop_hook_active"] = False
            data["last_assistant_message"] = payload.subagent_summary
    elif event == "PreCompact":
        data["trigger"] = str(payload.extra.get("trigger", "auto"))
        data["custom_instructions"] = str(payload.extra.get("custom_instructions", ""))
    elif event == "PostCompact":
        data["trigger"] = str(payload.extra.get("trigger", "auto"))
        data["compact_summary"] = payload.compact_summary
    return data


@dataclass
class ClaudePayload(HookPayload):
    """A payload a Claude Code hook reads: the same event, sent as :func:`claude_input` (stdin, or the body of
    an http hook)."""

    transcript_path: str = ""
    claude_name: str = ""
    """Claude Code's name of the tool (``Bash``…) when it has an equivalent here, else ``""``."""

    def to_dict(self) -> dict[str, Any]:
        return claude_input(self, transcript_path=self.transcript_path, tool_name=self.claude_name)

    def http_body(self, env: dict[str, str]) -> dict[str, Any]:
        return self.to_dict()  # Claude Code POSTs the input itself


def as_claude(payload: HookPayload, *, transcript_path: str) -> ClaudePayload:
    """``payload`` as a Claude Code hook reads it."""
    fields = {name: getattr(payload, name) for name in payload.__dataclass_fields__}
    return ClaudePayload(**fields, transcript_path=transcript_path, claude_name=claude_tool(payload.mcp_tool))


def matcher_subject(payload: Any) -> str:
    """What a Claude Code matcher is matched against on a non-tool event (SessionStart: its source, PreCompact:
    its trigger, Subagent events: the agent type); ``""`` where Claude Code has no matcher."""
    if payload.event == "SessionStart":
        return str(payload.extra.get("source", "startup"))
    if payload.event in ("PreCompact", "PostCompact"):
        return str(payload.extra.get("trigger", "auto"))
    if payload.event in ("SubagentStart", "SubagentStop"):
        return str(payload.subagent_role)
    return ""


# -- output ---------------------------------------------------------------------------------------------------


@dataclass
class ClaudeAnswer:
    """What a Claude Code hook answered, field by field (the JSON object on stdout after exit 0)."""

    decision: Decision | None = None
    reason: str = ""
    context: str = ""
    updated_input: dict[str, Any] | None = None
    system_message: str = ""
    suppress_output: bool = False
    halt: bool = False
    stop_reason: str = ""
    feedback: str = ""
    """Text for the model where the event cannot be blocked (PostToolUse's ``decision: "block"``)."""
    allow: bool = False
    """PermissionRequest ``decision.behavior: "allow"``: approved without asking."""
    ask: bool = False
    """PreToolUse ``permissionDecision: "ask"``: the user must have approved this call."""
    unsupported: str = ""
    """A field Switchboard cannot honour here (said in a notice)."""


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def read_answer(event: str, data: Mapping[str, Any]) -> ClaudeAnswer:
    """Claude Code's output fields for ``event`` (see the module docstring); unknown fields are ignored."""
    answer = ClaudeAnswer(system_message=_text(data.get("systemMessage")))
    answer.suppress_output = data.get("suppressOutput") is True
    if data.get("continue") is False:
        answer.halt = True
        answer.stop_reason = _text(data.get("stopReason"))
    top = _text(data.get("decision")).lower()
    reason = _text(data.get("reason"))
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, Mapping) else {}
    answer.context = _text(specific.get("additionalContext"))
    if top == "block":
        if event == "PostToolUse":
            answer.feedback = reason or "a PostToolUse hook flagged this result"
        elif event in ("Stop", "SubagentStop"):
            answer.unsupported = (
                f"it asked the model to go on ({reason or 'no reason given'}); Switchboard does not continue a "
                "finished answer from a Stop hook"
            )
        else:
            answer.decision, answer.reason = "block", reason
    elif top == "approve":  # PreToolUse's older form of permissionDecision "allow"
        answer.decision, answer.reason = "pass", reason
    if event == "PreToolUse":
        permission = _text(specific.get("permissionDecision")).lower()
        why = _text(specific.get("permissionDecisionReason"))
        if permission == "deny":
            answer.decision, answer.reason = "block", why or reason
        elif permission == "ask":  # met when the user approved this very call; else refused, saying why
            answer.ask = True
            answer.decision = "block"
            answer.reason = (why + " — " if why else "") + (
                "the hook asked for your confirmation, and this call was approved without asking you; "
                "set the tool to ask in Switchboard's approvals (or revoke its grant), or change the hook"
            )
        elif permission == "allow":
            answer.decision, answer.reason = "pass", why
        if isinstance(specific.get("updatedInput"), Mapping):
            answer.updated_input = dict(specific["updatedInput"])
    elif event == "PermissionRequest":
        decided = specific.get("decision")
        if isinstance(decided, Mapping):
            behavior = _text(decided.get("behavior")).lower()
            if behavior == "deny":
                answer.decision, answer.reason = "block", _text(decided.get("message"))
                if decided.get("interrupt") is True:
                    answer.halt = True
                    answer.stop_reason = answer.stop_reason or answer.reason
            elif behavior == "allow":
                answer.allow = True
                if isinstance(decided.get("updatedInput"), Mapping):
                    answer.updated_input = dict(decided["updatedInput"])
    if answer.halt:
        answer.decision = "halt"
        answer.reason = answer.stop_reason or answer.reason
    return answer


def _object(text: str) -> dict[str, Any] | None:
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        data = json.loads(stripped)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


PLAIN_CONTEXT_EVENTS = frozenset({"UserPromptSubmit", "SessionStart"})
"""Events whose plain stdout (exit 0, not JSON) Claude Code adds to the model's context."""


def claude_outcome(
    event: str, outcome: HookOutcome, *, tool_name: str = "", arguments: Any = None, user_approved: bool = False
) -> HookOutcome:
    """``outcome`` (as a command or HTTP hook ran) read by Claude Code's rules (see the module docstring)."""
    if outcome.decision == "timeout" or (outcome.exit_code is None and outcome.decision == "error"):
        return outcome  # timed out or could not start: Switchboard's rule (fails closed on a blocking event)
    code = outcome.exit_code if outcome.exit_code is not None else 0
    if code == 2:
        reason = outcome.stderr.strip() or f"{event} hook exited with code 2"
        answer = HookAnswer(decision="block", message=reason)
        if event == "PostToolUse":  # the tool ran already: stderr goes to the model with its result
            answer.additional_context = reason
        return replace(outcome, decision=normalise(event, "block"), answer=answer, stdout="")
    if code != 0:  # a non-blocking error: shown to the user, the event goes on
        return replace(outcome, decision="warn", answer=None)
    data = _object(outcome.stdout)
    if data is None:
        plain = outcome.stdout.strip()
        answer = HookAnswer(additional_context=plain if event in PLAIN_CONTEXT_EVENTS and plain else "")
        return replace(outcome, decision="pass", answer=answer, stdout="" if answer.additional_context else plain)
    read = read_answer(event, data)
    answer = HookAnswer(
        decision=read.decision,
        message=read.reason,
        additional_context="\n".join(part for part in (read.context, read.feedback) if part),
        updated_input=json.dumps(updated_arguments(tool_name, arguments, read.updated_input), separators=(",", ":"))
        if read.updated_input is not None
        else "",
        system_message=read.system_message,
        suppress_output=read.suppress_output,
        allow=read.allow,
        unsupported=read.unsupported,
    )
    decision = normalise(event, read.decision or "pass")
    if read.ask and user_approved and not read.halt:  # the user was asked, and approved this very call
        decision = "pass"
        answer.message = ""
    if read.feedback and decision == "pass":
        decision = "warn"  # shown to the user too: the hook flagged the result
        answer.message = read.feedback
    return replace(outcome, decision=decision, answer=answer, stdout="" if read.suppress_output else outcome.stdout)


__all__ = [
    "CLAUDE_TOOLS",
    "NO_EQUIVALENT",
    "ClaudeAnswer",
    "ClaudePayload",
    "as_claude",
    "claude_input",
    "claude_outcome",
    "claude_tool",
    "matcher_note",
    "matcher_subject",
    "read_answer",
    "tool_input",
    "updated_arguments",
]
