"""MCP message hooks (nanobot, ``seed-behaviours.md`` §2.3–2.4): filters that accept, reject or mutate a message.

A mapping ``method?param=value`` → ``["server/tool", "!mutate:server/tool", …]`` applies to a JSON-RPC
message whose method equals the mapping's name (or the name is ``*``) and whose call parameters
(``direction``, ``name``, ``callOnError``, ``method``) equal every parameter of the key. Mappings run in
sorted key order, targets in list order. Each target is a tool call whose arguments are the current
``{accept, mutated, message, reason}``; the fields it returns replace the current ones (fields it leaves out
keep their earlier values), so hooks chain. A ``!mutate:`` target that mutates is rejected implicitly.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from desktop_app.runtime.hooks.executors import ToolCaller
from desktop_app.runtime.hooks.model import HookSource

NO_MUTATE_PREFIX = "!mutate:"
IMPLICIT_REJECTION = "mutation not allowed by hook configuration, implicit rejection"
MUTATIONS_META_KEY = "ai.nanobot.hooks/mutations"


@dataclass(frozen=True)
class HookTarget:
    """A ``server/tool`` target; ``mutate_allowed`` is false for ``!mutate:`` targets."""

    server: str
    tool: str
    mutate_allowed: bool = True

    @classmethod
    def parse(cls, text: str) -> HookTarget:
        raw = text.strip()
        allowed = not raw.startswith(NO_MUTATE_PREFIX)
        raw = raw.removeprefix(NO_MUTATE_PREFIX).strip()
        server, slash, tool = raw.partition("/")
        if not slash or not server or not tool:
            raise ValueError(f"hook target '{text}' must be 'server/tool' (optionally prefixed '!mutate:')")
        return cls(server, tool, allowed)

    @property
    def name(self) -> str:
        return f"{self.server}/{self.tool}"

    def __str__(self) -> str:
        return self.name if self.mutate_allowed else NO_MUTATE_PREFIX + self.name


def parse_key(key: str) -> tuple[str, dict[str, str]]:
    """``name?k1=v1&k2=v2`` → (name, params); repeated values are joined with ``,``, empty ones kept."""
    name, _, query = key.partition("?")
    params: dict[str, list[str]] = {}
    for k, v in parse_qsl(query, keep_blank_values=True):
        params.setdefault(k, []).append(v)
    return name, {k: ",".join(v) for k, v in params.items()}


@dataclass(frozen=True)
class HookMapping:
    """One ``key → targets`` entry of a global (``scope`` None) or per-server ``hooks`` map."""

    key: str
    targets: tuple[HookTarget, ...]
    source: HookSource
    scope: str | None = None

    @property
    def name(self) -> str:
        return parse_key(self.key)[0]

    @property
    def params(self) -> dict[str, str]:
        return parse_key(self.key)[1]

    def matches(self, method: str, params: dict[str, str]) -> bool:
        if self.name not in (method, "*"):
            return False
        return all(params.get(k) == v for k, v in self.params.items())


def sorted_mappings(mappings: Sequence[HookMapping]) -> list[HookMapping]:
    """Mappings by sorted key string (stable: equal keys keep their order)."""
    return sorted(mappings, key=lambda m: m.key)


def message_name(method: str, params: dict[str, Any] | None) -> str:
    """The ``name`` parameter: ``params.name`` for tools/call and prompts/get, ``params.uri`` for resources."""
    params = params or {}
    if method in ("tools/call", "prompts/get"):
        return str(params.get("name", ""))
    if method in ("resources/read", "resources/subscribe", "resources/unsubscribe"):
        return str(params.get("uri", ""))
    return ""


@dataclass
class MessageHookRun:
    """What one direction's hooks did to a message."""

    message: dict[str, Any]
    """The message after the hooks (the original when nothing mutated it)."""
    mutated: bool = False
    reasons: list[str] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)
    """The targets that mutated the message, in order."""
    rejections: list[str] = field(default_factory=list)
    """``hook <name> rejected message: <reason>`` for each rejection."""
    rejected_by: list[str] = field(default_factory=list)
    """The targets that rejected the message or failed to answer (a failure fails the call too)."""
    errors: list[str] = field(default_factory=list)
    """``failed to run hook <name>: …`` for each target that could not run."""
    ran: int = 0

    @property
    def error(self) -> str:
        return "; ".join([*self.rejections, *self.errors])


async def run_message_hooks(
    mappings: Sequence[HookMapping], message: dict[str, Any], direction: str, call: ToolCaller
) -> MessageHookRun:
    """Run the matching mappings' targets on ``message`` (see the module docstring); never raises."""
    method = str(message.get("method", ""))
    params = {
        "method": method,
        "direction": direction,
        "callOnError": "true" if message.get("error") is not None else "false",
        "name": message_name(method, message.get("params")),
    }
    run = MessageHookRun(message=message)
    current: dict[str, Any] = {"accept": True, "mutated": False, "message": copy.deepcopy(message), "reason": ""}
    for mapping in sorted_mappings(mappings):
        if not mapping.matches(method, params):
            continue
        for target in mapping.targets:
            run.ran += 1
            output = await _run_target(call, target, current)
            if isinstance(output, str):  # fails closed: the call fails, and the notice names the hook
                run.errors.append(f"failed to run hook {mapping.key} ({target.name}): {output}")
                run.rejected_by.append(target.name)
                continue
            if output is None:
                continue
            response = {**current, **{k: v for k, v in output.items() if k in current}}
            mutated_here = bool(output.get("mutated")) and "mutated" in output
            if response.get("mutated") and not target.mutate_allowed:
                reason = str(response.get("reason") or "")
                response["reason"] = (reason + "; " if reason else "") + IMPLICIT_REJECTION
                response["accept"] = False
                response["mutated"] = False
                mutated_here = False
            if not response.get("accept", True):
                reason = str(response.get("reason") or "").strip() or f"hook {target.name!r} did not provide a reason"
                run.rejections.append(f"hook {mapping.key} rejected message: {reason}")
                run.rejected_by.append(target.name)
            elif mutated_here and isinstance(response.get("message"), dict):
                new_message = dict(response["message"])
                for key in ("result", "params"):
                    if key in new_message and new_message[key] is None:
                        new_message.pop(key)
                response["message"] = new_message
                run.message = new_message
                run.mutated = True
                run.hooks.append(target.name)
                reason = str(output.get("reason") or "").strip()
                if reason:
                    run.reasons.append(reason)
            current = response
    return run


async def _run_target(call: ToolCaller, target: HookTarget, current: dict[str, Any]) -> dict[str, Any] | str | None:
    """The target's answer (its structured output, or a JSON object as its text), ``None`` for no output, or an
    error text. Any other answer (plain text, a JSON value that is not an object) is an error: a filter that
    does not say ``{accept, …}`` has not accepted the message (fail closed)."""
    try:
        result = await call(target.server, target.tool, copy.deepcopy(current))
    except Exception as exc:  # a hook server must not break the call it filters
        return f"{type(exc).__name__}: {exc}"
    if result.is_error:
        return result.text or f"failed to call hook {target.name}: {json.dumps(result.structured)}"
    if result.structured is not None:
        return result.structured
    text = (result.text or "").strip()
    if not text:
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return parsed
    shown = text if len(text) <= 200 else text[:200] + "…"
    return f"the hook answered {shown!r}, not an object {{accept, mutated, message, reason}}; the message is refused"


def mutations_meta(request: MessageHookRun | None, response: MessageHookRun | None) -> dict[str, Any]:
    """``{"request": {"mutated": true, "reasons": [...]}, "response": {...}}``: unmutated directions and
    empty reasons are left out."""
    meta: dict[str, Any] = {}
    for direction, run in (("request", request), ("response", response)):
        if run is not None and run.mutated:
            record: dict[str, Any] = {"mutated": True}
            if run.reasons:
                record["reasons"] = list(run.reasons)
            meta[direction] = record
    return meta


def notice_text(direction: str, reasons: Sequence[str]) -> str:
    """``MCP request was mutated by hooks.`` plus `` Reasons: r1; r2`` when there are reasons."""
    text = f"MCP {direction} was mutated by hooks."
    if reasons:
        text += " Reasons: " + "; ".join(reasons)
    return text


def add_mutation_notices(content: list[dict[str, Any]], meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The request notice before the content and the response notice after it (nanobot's order)."""
    found = meta.get(MUTATIONS_META_KEY, meta)
    mutations: dict[str, Any] = found if isinstance(found, dict) else {}
    out = list(content)
    request, response = mutations.get("request"), mutations.get("response")
    if request and request.get("mutated"):
        out.insert(0, {"type": "text", "text": notice_text("request", request.get("reasons", []))})
    if response and response.get("mutated"):
        out.append({"type": "text", "text": notice_text("response", response.get("reasons", []))})
    return out
