"""The hook step inside ``Host.call``: PreToolUse → request hooks → the tool → response hooks → PostToolUse.

Every call through the host passes here, whoever made it (the run loop, a later HTTP front, an agent),
so every call gets the same hooks. Nothing a hook does is silent: a block, a rejection, a changed
argument or result, a failed hook — each becomes a :class:`HookNotice` on the outcome, and mutated
MCP messages also get nanobot's ``_meta["ai.nanobot.hooks/mutations"]`` and notice texts in the content.
A request hook may change the arguments but not which tool runs (the approval was for that tool): a message
naming another tool is refused and nothing runs.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError

from desktop_app.runtime.hooks.context import current_tool_call
from desktop_app.runtime.hooks.message import (
    MUTATIONS_META_KEY,
    MessageHookRun,
    add_mutation_notices,
    mutations_meta,
    run_message_hooks,
)
from desktop_app.runtime.hooks.model import HookPayload
from desktop_app.runtime.hooks.notices import HookNotice
from desktop_app.runtime.hooks.runner import HookRunner, blocked_notice, failure_notices
from desktop_app.runtime.host.client_features import ProgressCallback
from desktop_app.runtime.host.outcomes import CallOutcome, outcome_from_result
from desktop_app.runtime.sdk_types import mtypes

RawCall = Callable[[str, str, dict[str, Any], ProgressCallback | None], Awaitable[CallOutcome]]
_ids = itertools.count(1)


def _blocked_text(message: str, code: str) -> str:
    return json.dumps({"success": False, "error": message, "code": code}, ensure_ascii=False)


def _error(text: str, notices: list[HookNotice]) -> CallOutcome:
    return CallOutcome(text=text, is_error=True, content=[{"type": "text", "text": text}], hooks=notices)


def _text_of(content: list[dict[str, Any]]) -> str:
    return "\n".join(str(block.get("text", "")) for block in content if block.get("type") == "text")


async def hooked_call(
    runner: HookRunner,
    raw: RawCall,
    server: str,
    tool: str,
    tool_name: str,
    arguments: dict[str, Any],
    progress: ProgressCallback | None,
) -> CallOutcome:
    """Call ``server``/``tool`` through every hook that applies (see the module docstring)."""
    context = current_tool_call.get()
    session = context.conversation_id if context else ""
    call_id = context.tool_call_id if context else ""
    cwd = str(runner.cwd or "")
    notices: list[HookNotice] = []

    # PreToolUse: may block, may rewrite the arguments.
    pre = await runner.run(
        "PreToolUse",
        HookPayload(
            "PreToolUse",
            cwd=cwd,
            session_id=session,
            tool_name=tool_name,
            tool_args=arguments,
            tool_call_id=call_id,
            mcp_tool=tool,
        ),
    )
    notices += failure_notices(pre)
    if pre.blocked:
        notice = blocked_notice(pre, target="arguments", before=arguments)
        code = "hook_halted" if pre.halted else "hook_blocked"
        return _error(_blocked_text(notice.message, code), [*notices, notice])
    if pre.updated_input:
        try:
            updated = json.loads(pre.updated_input)
        except ValueError:
            updated = None
        if isinstance(updated, dict) and updated != arguments:
            who = [o.hook for o in pre.outcomes if o.updated_input]
            notices.append(
                HookNotice(
                    kind="mutated",
                    event="PreToolUse",
                    hooks=who,
                    target="arguments",
                    before=arguments,
                    after=updated,
                    message=f"PreToolUse hook {', '.join(who)} changed the arguments.",
                    reasons=[o.message for o in pre.outcomes if o.updated_input and o.message],
                )
            )
            arguments = updated
        elif not isinstance(updated, dict):
            notices.append(
                HookNotice(
                    kind="failed",
                    event="PreToolUse",
                    message="A PreToolUse hook returned updated_input that "
                    "is not a JSON object; the original arguments were used.",
                    reasons=[pre.updated_input],
                )
            )

    # MCP message hooks, request direction.
    mappings = runner.mappings_for(server)
    caller = runner.tool_caller
    request = {
        "jsonrpc": "2.0",
        "id": next(_ids),
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    request_run: MessageHookRun | None = None
    if mappings and caller is not None:
        request_run = await run_message_hooks(mappings, request, "request", caller)
        if request_run.error:
            return _error(
                f'failed to call "request" hooks: {request_run.error}',
                [*notices, _rejected("tools/call request", request_run, arguments)],
            )
        if request_run.mutated:
            request = request_run.message
            params = request.get("params") or {}
            swapped = _swapped_tool(request, tool)
            if swapped is not None:  # what was approved is this tool: another one never runs in its place
                run = request_run
                message = (
                    f"Message hook {', '.join(run.hooks) or 'a message hook'} tried to change the tool of this call "
                    f"from '{tool}' to '{swapped}'. A hook may change a call's arguments, not which tool runs, so "
                    "nothing ran. Fix or remove that hook."
                )
                notice = HookNotice(
                    kind="rejected",
                    event="tools/call request",
                    hooks=list(run.hooks) or ["message hook"],
                    reasons=list(run.reasons),
                    message=message,
                    target="arguments",
                    before=arguments,
                )
                return _error(_blocked_text(message, "hook_changed_tool"), [*notices, notice])
            new_args = params.get("arguments") if isinstance(params, dict) else None
            new_args = new_args if isinstance(new_args, dict) else {}
            notices.append(_mutated("tools/call request", request_run, "arguments", arguments, new_args))
            arguments = new_args

    outcome = await raw(server, tool, arguments, progress)

    # MCP message hooks, response direction.
    response_run: MessageHookRun | None = None
    if mappings and caller is not None:
        response = {**copy.deepcopy(request), "result": _result_dict(outcome)}
        response_run = await run_message_hooks(mappings, response, "response", caller)
        if response_run.error:
            return _error(
                f'failed to call "response" hooks: {response_run.error}',
                [*notices, _rejected("tools/call response", response_run, None)],
            )
        if response_run.mutated:
            before = outcome.text
            outcome = _outcome_from_message(response_run.message, outcome)
            notices.append(_mutated("tools/call response", response_run, "result", before, outcome.text))
    meta = mutations_meta(request_run, response_run)
    if meta:
        content = add_mutation_notices(outcome.content, meta)
        full_meta = {**(outcome.meta or {}), MUTATIONS_META_KEY: meta}
        outcome = outcome.model_copy(update={"content": content, "text": _text_of(content), "meta": full_meta})

    # PostToolUse: its context (and PreToolUse's) goes with the result; a block is only a warning here.
    post = await runner.run(
        "PostToolUse",
        HookPayload(
            "PostToolUse",
            cwd=cwd,
            session_id=session,
            tool_name=tool_name,
            tool_args=arguments,
            tool_call_id=call_id,
            tool_result=outcome.text,
            tool_outcome="failure" if outcome.is_error else "success" if outcome.text else "no_result",
            tool_error_code="tool_error" if outcome.is_error else "",
            mcp_tool=tool,
        ),
    )
    notices += failure_notices(post)
    extra = "\n".join(part for part in (pre.additional_context, post.additional_context) if part)
    if extra:
        outcome = attach_context(outcome, extra)
        who = [o.hook for o in [*pre.outcomes, *post.outcomes] if o.additional_context]
        notices.append(
            HookNotice(
                kind="context",
                event="PostToolUse",
                hooks=who,
                reasons=[extra],
                target="result",
                message=f"Hook {', '.join(who)} added context to the result.",
            )
        )
    if notices:
        outcome = outcome.model_copy(update={"hooks": [*outcome.hooks, *notices]})
    return outcome


def attach_context(outcome: CallOutcome, context: str) -> CallOutcome:
    """Whale: a JSON envelope gets ``metadata.hook_context`` (a list); plain text gets ``\\n`` + context."""
    try:
        envelope = json.loads(outcome.text)
    except ValueError:
        envelope = None
    if isinstance(envelope, dict):
        metadata = envelope.setdefault("metadata", {})
        if isinstance(metadata, dict):
            existing = metadata.get("hook_context")
            metadata["hook_context"] = [*(existing if isinstance(existing, list) else []), context]
            text = json.dumps(envelope, ensure_ascii=False)
            return outcome.model_copy(update={"text": text, "content": [{"type": "text", "text": text}]})
    text = f"{outcome.text}\n{context}" if outcome.text else context
    return outcome.model_copy(update={"text": text, "content": [*outcome.content, {"type": "text", "text": context}]})


def _swapped_tool(request: dict[str, Any], tool: str) -> str | None:
    """The other tool a request hook's message names, or ``None`` when it names
    ``tool`` or none (a message without a name keeps the call's tool)."""
    params = request.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    if isinstance(name, str) and name and name != tool:
        return name
    return None


def _result_dict(outcome: CallOutcome) -> dict[str, Any]:
    result: dict[str, Any] = {
        "content": list(outcome.content) or [{"type": "text", "text": outcome.text}],
        "isError": outcome.is_error,
    }
    if outcome.structured is not None:
        result["structuredContent"] = outcome.structured
    if outcome.meta:
        result["_meta"] = outcome.meta
    return result


def _outcome_from_message(message: dict[str, Any], original: CallOutcome) -> CallOutcome:
    result = message.get("result")
    if not isinstance(result, dict):
        return original.model_copy(update={"text": "", "content": [], "structured": None})
    try:
        parsed = mtypes.CallToolResult.model_validate(result)
    except ValidationError:
        text = json.dumps(result, ensure_ascii=False)
        return CallOutcome(text=text, content=[{"type": "text", "text": text}])
    outcome = outcome_from_result(parsed)
    meta = result.get("_meta")
    return outcome.model_copy(update={"meta": meta if isinstance(meta, dict) else None})


def _mutated(event: str, run: MessageHookRun, target: str, before: Any, after: Any) -> HookNotice:
    who = ", ".join(run.hooks)
    reasons = "; ".join(run.reasons)
    return HookNotice(
        kind="mutated",
        event=event,
        hooks=list(run.hooks),
        reasons=list(run.reasons),
        target=target,
        before=before,
        after=after,
        message=f"{event.split()[-1].capitalize()} changed by {who}" + (f": {reasons}" if reasons else "."),
    )


def _rejected(event: str, run: MessageHookRun, before: Any) -> HookNotice:
    return HookNotice(
        kind="rejected",
        event=event,
        hooks=list(run.rejected_by) or ["message hook"],
        reasons=[*run.rejections, *run.errors],
        message=run.error,
        target="arguments" if before is not None else "result",
        before=before,
    )
