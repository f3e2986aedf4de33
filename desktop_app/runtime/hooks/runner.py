"""The one hook runner: every lifecycle event and every MCP message hook goes through :class:`HookRunner`.

It knows the hook sources (files are re-read when they change, so an edited project hook is seen as
"modified" at once), filters out hooks that are not trusted or are disabled — they never run — and runs
an event's hooks in order: it stops after a block (short-circuit) and hands each hook's
``updated_input`` to the next hook's payload. Later features (compaction, sub-agents) only call
:meth:`HookRunner.run` with the payloads of :mod:`.model`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from desktop_app.runtime.hooks.claude import as_claude, claude_outcome, claude_tool, matcher_subject
from desktop_app.runtime.hooks.config import HookSet, read_hooks_file
from desktop_app.runtime.hooks.context import current_tool_call
from desktop_app.runtime.hooks.decisions import HookOutcome, HookReport
from desktop_app.runtime.hooks.executors import ToolCaller, run_command, run_http, run_mcp
from desktop_app.runtime.hooks.message import HookMapping
from desktop_app.runtime.hooks.model import BLOCKING_EVENTS, HookPayload, HookSource, LifecycleHook
from desktop_app.runtime.hooks.notices import HookNotice
from desktop_app.runtime.hooks.transcript import Transcripts
from desktop_app.runtime.hooks.trust import HookEntry, TrustState, TrustStore, lifecycle_entry, message_entry

log = logging.getLogger(__name__)


@dataclass
class _FileSource:
    path: Path
    source: HookSource
    stamp: tuple[float, int] | None = None
    hooks: HookSet | None = None

    def current(self) -> HookSet:
        try:
            stat = self.path.stat()
            stamp: tuple[float, int] | None = (stat.st_mtime, stat.st_size)
        except OSError:
            stamp = None
        if self.hooks is None or stamp != self.stamp:
            self.stamp = stamp
            self.hooks = read_hooks_file(self.path, self.source) if stamp is not None else HookSet()
        return self.hooks


@dataclass(frozen=True)
class ReviewedHook:
    """A hook for the review screen: what it is and whether it runs."""

    entry: HookEntry
    state: TrustState


class HookRunner:
    """Runs hooks. ``cwd`` is the workspace hooks run in (and report as ``cwd``)."""

    def __init__(self, trust: TrustStore | None = None, *, cwd: Path | None = None) -> None:
        self.trust = trust or TrustStore()
        self.cwd = cwd
        self._static = HookSet()
        self._files: list[_FileSource] = []
        self._call: ToolCaller | None = None
        self._listeners: list[Callable[[], None]] = []
        self.executions: dict[str, int] = {}
        """How often each hook (by key) has run in this process."""
        folder = self.trust.path.parent / "transcripts" if self.trust.path is not None else None
        self.transcripts = Transcripts(folder)
        """The transcripts Claude Code hooks read (the runtime sets where the messages come from)."""

    # -- sources ----------------------------------------------------------------------------------

    def add_hooks(self, hooks: HookSet) -> None:
        """Hooks read already (settings.json, mcp.json)."""
        self._static.extend(hooks)

    def add_file(self, path: Path, source: HookSource) -> None:
        """A hooks file read now and again whenever it changes (a project's, a plugin's, an imported one);
        a file already followed is not added twice (a plugin enabled again while the app runs)."""
        if not any(file.path == path for file in self._files):
            self._files.append(_FileSource(path, source))

    def bind(self, call: ToolCaller) -> None:
        """The raw tool call path (no hooks) that ``mcp`` hooks and message hooks use."""
        self._call = call

    def hooks(self) -> HookSet:
        merged = HookSet()
        merged.extend(self._static)
        for file in self._files:
            merged.extend(file.current())
        return merged

    def empty(self) -> bool:
        """No hook from any source (the host then skips the hook step entirely)."""
        found = self.hooks()
        return not found.lifecycle and not found.mappings

    @property
    def problems(self) -> list[str]:
        problems = list(self.hooks().problems)
        if self.trust.problem:
            problems.append(self.trust.problem)
        return problems

    @property
    def own_problems(self) -> list[str]:
        """Problems in the user's own files (settings.json, mcp.json, trust.json). A broken hooks file from a
        project, plugin or import is not the user's to fix before anything runs: its hooks are skipped (and
        listed in :attr:`problems`), never a reason to refuse to start."""
        problems = list(self._static.problems)
        problems += [p for f in self._files if f.source.trusted_by_default for p in f.current().problems]
        if self.trust.problem:
            problems.append(self.trust.problem)
        return problems

    # -- review and trust ---------------------------------------------------------------------------

    def review(self) -> list[ReviewedHook]:
        """Every hook from every source, with its state (trusted, untrusted, modified, disabled)."""
        return [ReviewedHook(entry, self.trust.state(entry)) for entry in self._entries()]

    def _entries(self) -> list[HookEntry]:
        found = self.hooks()
        entries = [lifecycle_entry(hook, self.cwd) for hook in found.lifecycle]
        for mapping in found.mappings:
            entries.extend(message_entry(mapping, i, target) for i, target in enumerate(mapping.targets))
        return entries

    def _entry(self, key: str) -> HookEntry:
        for entry in self._entries():
            if entry.key == key:
                return entry
        raise KeyError(f"no hook with key {key!r}")

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Called after trust or enabled flags change (the review screen refreshes)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    def trust_hook(self, key: str) -> None:
        self.trust.trust(self._entry(key))
        self._changed()

    def revoke_hook(self, key: str) -> None:
        self.trust.revoke(self._entry(key))
        self._changed()

    def set_enabled(self, key: str, enabled: bool) -> None:
        self.trust.set_enabled(self._entry(key), enabled)
        self._changed()

    # -- lifecycle hooks ----------------------------------------------------------------------------

    def active_hooks(self, event: str, tool_name: str = "", payload: HookPayload | None = None) -> list[LifecycleHook]:
        """The hooks that run for ``event`` (trusted, enabled, and matching ``tool_name``), in order; with the
        ``payload``, Claude Code hooks also match an equivalent tool by Claude Code's name (hooks/claude.py)."""
        claude_name = claude_tool(payload.mcp_tool) if payload is not None else ""
        subject = matcher_subject(payload) if payload is not None else ""
        return [
            hook
            for hook in self.hooks().lifecycle
            if hook.event == event
            and hook.matches(tool_name, claude_name=claude_name, subject=subject)
            and self.trust.active(lifecycle_entry(hook, self.cwd))
        ]

    async def run(self, event: str, payload: HookPayload) -> HookReport:
        """Run ``event``'s active hooks in order; stops after a block; chains ``updated_input``."""
        report = HookReport(event)
        if not payload.cwd and self.cwd is not None:
            payload = replace(payload, cwd=str(self.cwd))
        for hook in self.active_hooks(event, payload.tool_name, payload):
            key = lifecycle_entry(hook).key
            self.executions[key] = self.executions.get(key, 0) + 1
            report.ran += 1
            outcome = await self._run_one(hook, payload)
            report.outcomes.append(outcome)
            if outcome.decision in ("error", "timeout", "warn"):
                log.warning("%s hook %s: %s (%s)", event, hook.label, outcome.decision, outcome.explanation())
            if report.blocked:
                break
            if outcome.updated_input:
                payload = apply_updated_input(payload, outcome.updated_input)
        return report

    async def _run_one(self, hook: LifecycleHook, payload: HookPayload) -> HookOutcome:
        if hook.definition.format == "claude":  # Claude Code's input, output and exit codes
            transcript = self.transcripts.path_for(payload.session_id, payload.cwd)
            sent = as_claude(payload, transcript_path=transcript)
            try:
                outcome = await self._execute(hook, sent)
            finally:
                self.transcripts.discard(transcript)
            context = current_tool_call.get()
            return claude_outcome(
                hook.event,
                outcome,
                tool_name=sent.claude_name,
                arguments=payload.tool_args,
                user_approved=context is not None and context.user_approved,
            )
        return await self._execute(hook, payload)

    async def _execute(self, hook: LifecycleHook, payload: HookPayload) -> HookOutcome:
        kind = hook.definition.type
        if kind == "command":
            return await run_command(hook, payload, cwd=self.cwd)
        if kind == "http":
            return await run_http(hook, payload)
        return await run_mcp(hook, payload, self._call)

    # -- MCP message hooks --------------------------------------------------------------------------

    def mappings_for(self, server: str) -> list[HookMapping]:
        """The global mappings plus ``server``'s own, with only trusted, enabled targets."""
        result: list[HookMapping] = []
        for mapping in self.hooks().mappings:
            if mapping.scope not in (None, server):
                continue
            targets = tuple(
                target
                for index, target in enumerate(mapping.targets)
                if self.trust.active(message_entry(mapping, index, target))
            )
            if targets:
                result.append(replace(mapping, targets=targets))
        return result

    @property
    def tool_caller(self) -> ToolCaller | None:
        return self._call


def apply_updated_input(payload: HookPayload, updated: str) -> HookPayload:
    """The next hook's payload: UserPromptSubmit gets the new prompt, tool events the new arguments."""
    if payload.event in ("UserPromptSubmit", "SubagentStart") and not payload.tool_args:
        return replace(payload, prompt=updated)
    try:
        args = json.loads(updated)
    except ValueError:
        return payload
    return replace(payload, tool_args=args)


def failure_notices(report: HookReport) -> list[HookNotice]:
    """Notices for hooks that failed or warned without blocking (the run goes on; the user sees it), and every
    hook's ``systemMessage`` (Claude Code: shown to the user, blocked or not)."""
    notices = said_notices(report)
    if report.blocked and report.event in BLOCKING_EVENTS:
        return notices  # the caller shows the block
    for outcome in report.outcomes:
        if outcome.decision == "halt":  # continue: false on an event that cannot block: shown below
            continue
        if outcome.failed or outcome.decision in ("error", "timeout"):
            why = outcome.explanation() or outcome.decision
            notices.append(
                HookNotice(
                    kind="failed",
                    event=report.event,
                    hooks=[outcome.hook],
                    reasons=[why],
                    message=f"{report.event} hook {outcome.hook} failed ({outcome.decision}): {why}. "
                    "The run went on without it; fix the hook or disable it in Settings → Hooks.",
                )
            )
        elif outcome.decision == "warn":
            why = outcome.explanation()
            notices.append(
                HookNotice(
                    kind="warning",
                    event=report.event,
                    hooks=[outcome.hook],
                    reasons=[why] if why else [],
                    message=f"{report.event} hook {outcome.hook} warned" + (f": {why}" if why else "."),
                )
            )
    if report.blocked:
        notices.append(blocked_notice(report))
    return notices


def said_notices(report: HookReport) -> list[HookNotice]:
    """What hooks asked to show the user (``systemMessage``) or asked for that cannot be done here."""
    notices: list[HookNotice] = []
    for outcome in report.outcomes:
        answer = outcome.answer
        if answer is None:
            continue
        if answer.system_message:
            notices.append(
                HookNotice(
                    kind="warning",
                    event=report.event,
                    hooks=[outcome.hook],
                    reasons=[answer.system_message],
                    message=f"{report.event} hook {outcome.hook}: {answer.system_message}",
                )
            )
        if answer.unsupported:
            notices.append(
                HookNotice(
                    kind="warning",
                    event=report.event,
                    hooks=[outcome.hook],
                    reasons=[answer.unsupported],
                    message=f"{report.event} hook {outcome.hook}: {answer.unsupported}.",
                )
            )
    return notices


def blocked_notice(report: HookReport, *, target: str = "none", before: object = None) -> HookNotice:
    outcome = report.blocking_outcome
    why = outcome.explanation() if outcome is not None else ""
    if outcome is not None and not why:
        why = outcome.decision
    return HookNotice(
        kind="blocked",
        event=report.event,
        hooks=[outcome.hook] if outcome is not None else [],
        reasons=[why] if why else [],
        message=report.block_message(),
        target=target,
        before=before,
        halted=report.halted,
    )


__all__: Sequence[str] = ["HookRunner", "ReviewedHook", "apply_updated_input", "blocked_notice", "failure_notices"]
