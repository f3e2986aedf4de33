"""Deferred tools: which tool schemas the model gets, and what it can load with ``tool_search``.

This module owns the deferral policy and the per-conversation tool view:

* :class:`ToolDeferral` (one per runtime) turns the host's tools into a :class:`ToolPlan`: with mode
  ``never`` (or ``auto`` below both thresholds: more than ``max_tools`` tools, or definitions above
  ``context_percent`` % of the context window) every tool is loaded; otherwise only the built-ins
  (``tool_search`` among them) and the pinned tools are, and every other tool goes into the
  :class:`~desktop_app.runtime.host.catalog.Catalog`. Excluded tools are never offered, nor are the tools
  a hook calls (``pii/redact`` as a message hook's target) unless the user pins them (:mod:`.tool_plan`).
* :class:`ConversationTools` is the host as one conversation's run loop sees it (``tool_specs``,
  ``lookup``, ``call``): the loaded tools, then the promoted ones **appended** in promotion order (the
  tool list only grows, so a provider's prompt cache stays valid). A ``tool_search`` result promotes
  what it matched; a deferred tool the model calls by its exact name goes through the normal approval
  path and is promoted too. Promotions are saved with the catalog hash (:class:`PromotionStore`) and
  restored when the conversation reopens, if the hash still matches.
* :meth:`ConversationTools.system_note` is the ``<available-deferred-tools>`` block (4,000 characters, every
  server named with a fair share each: :mod:`.host.catalog_index`) that goes into the system prompt while
  tools are deferred.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from desktop_app.runtime.conversation import ProgressCallback, ToolOutcome
from desktop_app.runtime.events.parts import PromotionReason
from desktop_app.runtime.host.catalog import CATALOG_SERVER as TOOLS_SERVER
from desktop_app.runtime.host.catalog import CATALOG_TOOL as TOOL_SEARCH
from desktop_app.runtime.host.catalog import Catalog, make_entry
from desktop_app.runtime.host.host import HostTool, tool_spec
from desktop_app.runtime.host.jsonfiles import write_json_atomically
from desktop_app.runtime.messages import ToolSpec
from desktop_app.runtime.settings import DeferralMode, Settings
from desktop_app.runtime.tool_names import model_safe_name
from desktop_app.runtime.tools.plan import ToolPlan, hook_targets

log = logging.getLogger(__name__)

PromotionListener = Callable[[list[str], PromotionReason, str], None]
"""Called with the promoted names, why, and the catalog hash."""
SYSTEM_NOTE_INTRO = (
    "MCP tools listed under <available-deferred-tools> are not in your tool schema yet. To use one, call "
    "tool_search first (for example with 'select:<name>' or a keyword); the tools it finds are loaded for "
    "your next call."
)
CHARS_PER_TOKEN = 4


def estimate_tokens(spec: ToolSpec) -> int:
    """A rough token count of one tool definition as it is sent (about four characters a token)."""
    body = {
        "type": "function",
        "function": {"name": spec.name, "description": spec.description, "parameters": spec.parameters},
    }
    return math.ceil(len(json.dumps(body, ensure_ascii=False, separators=(",", ":"))) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class DeferralSettings:
    """The deferral settings (see :class:`~desktop_app.runtime.settings.Settings`)."""

    mode: DeferralMode = "auto"
    context_percent: float = 5.0
    max_tools: int = 40
    context_window: int = 128_000

    @classmethod
    def from_settings(cls, settings: Settings) -> DeferralSettings:
        return cls(
            mode=settings.tool_deferral,
            context_percent=settings.tool_deferral_context_percent,
            max_tools=settings.tool_deferral_max_tools,
            context_window=settings.context_window_tokens,
        )

    @property
    def token_budget(self) -> int:
        return int(self.context_window * self.context_percent / 100)


class ToolSource(Protocol):
    """What the deferral needs of the host: its tools and the one call path."""

    def tools(self, *, include_excluded: bool = False) -> list[HostTool]: ...

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, progress: ProgressCallback | None = None
    ) -> ToolOutcome: ...

    def server_identity(self, server: str) -> str | None: ...


class ToolDeferral:
    """The runtime's deferral policy over the host's tools; hands out one :class:`ConversationTools` each."""

    def __init__(
        self,
        host: ToolSource,
        settings: Callable[[], DeferralSettings],
        store: PromotionStore | None = None,
    ) -> None:
        self._host = host
        self._settings = settings
        self.store = store
        self._views: dict[str, ConversationTools] = {}
        self._cache: tuple[list[HostTool], DeferralSettings, dict[tuple[str, str], str], ToolPlan] | None = None
        self._token_cache: dict[tuple[str, str, int], int] = {}

    @property
    def host(self) -> ToolSource:
        return self._host

    @property
    def settings(self) -> DeferralSettings:
        return self._settings()

    def plan(self) -> ToolPlan:
        """The current plan (recomputed only when the host's tools or the settings changed)."""
        tools = self._host.tools()
        settings = self._settings()
        targets = hook_targets(self._host)
        cached = self._cache
        if cached is not None and cached[1] == settings and cached[2] == targets and _same_tools(cached[0], tools):
            return cached[3]
        plan = self._make_plan(tools, settings, targets)
        self._cache = (tools, settings, targets, plan)
        return plan

    def catalog(self) -> Catalog:
        """The current deferred catalog (empty when nothing is deferred); ``tool_search`` searches it."""
        return self.plan().catalog

    def _tokens(self, tool: HostTool) -> int:
        key = (tool.name, tool.description, id(tool.input_schema))
        found = self._token_cache.get(key)
        if found is None:
            found = self._token_cache[key] = estimate_tokens(tool_spec(tool))
        return found

    def _make_plan(
        self, all_tools: list[HostTool], settings: DeferralSettings, targets: dict[tuple[str, str], str]
    ) -> ToolPlan:
        search_tool = next((t for t in all_tools if t.server == TOOLS_SERVER and t.tool == TOOL_SEARCH), None)
        # A hook's target (pii/redact) is a filter, not a tool for the model: held back unless the user pins it.
        held = {
            t.name: targets[(t.server, t.tool)]
            for t in all_tools
            if (t.server, t.tool) in targets and not t.builtin and not t.pinned
        }
        tools = [t for t in all_tools if t is not search_tool and t.name not in held]
        tokens = {t.name: self._tokens(t) for t in tools}
        total = sum(tokens.values())
        budget = settings.token_budget
        if settings.mode == "never":
            deferring, reason = False, "deferral is off (mode: never)"
        elif settings.mode == "always":
            deferring, reason = True, "deferral is always on (mode: always)"
        elif len(tools) > settings.max_tools:
            deferring, reason = True, f"{len(tools)} tools are more than {settings.max_tools}"
        elif total > budget:
            deferring = True
            share = f"{settings.context_percent:g}% of the context window ({budget:,})"
            reason = f"tool definitions take ~{total:,} tokens, more than {share}"
        else:
            deferring = False
            reason = f"{len(tools)} tools (~{total:,} tokens) are within the thresholds"
        deferred = [t for t in tools if deferring and not t.pinned and not t.builtin]
        catalog = Catalog(make_entry(t.name, t.server, t.description, t.input_schema) for t in deferred)
        names = set(catalog.names())
        loaded = [t for t in tools if t.name not in names]
        if catalog and search_tool is not None:
            loaded.append(search_tool)
            loaded.sort(key=lambda t: t.name)
            tokens[search_tool.name] = self._tokens(search_tool)
        by_name = {t.name: t for t in tools}
        if search_tool is not None and catalog:
            by_name[search_tool.name] = search_tool
        if deferring and not catalog:
            reason += "; every tool is pinned"
        return ToolPlan(tuple(tools), tuple(loaded), catalog, bool(catalog), reason, tokens, by_name, held)

    # -- conversations -------------------------------------------------------------------------------

    def view(self, conversation_id: str) -> ConversationTools:
        """The tool view of one conversation (created on first use, restoring its saved promotions)."""
        view = self._views.get(conversation_id)
        if view is None:
            view = self._views[conversation_id] = ConversationTools(self, conversation_id)
        return view

    def existing_view(self, conversation_id: str) -> ConversationTools | None:
        return self._views.get(conversation_id)


def _same_tools(old: list[HostTool], new: list[HostTool]) -> bool:
    return len(old) == len(new) and all(a is b or a == b for a, b in zip(old, new, strict=True))


class ConversationTools:
    """One conversation's tools: loaded + promoted (appended), ``lookup`` over every offered tool, and the
    call path that promotes. Implements the run loop's ``ToolHost``."""

    def __init__(self, deferral: ToolDeferral, conversation_id: str) -> None:
        self._deferral = deferral
        self.conversation_id = conversation_id
        self._promoted: list[str] = []
        self._restore_pending = deferral.store is not None
        self._restore_tried: str | None = None
        """The catalog hash the saved promotions were last checked against (checked again when it changes)."""
        self.listener: PromotionListener | None = None
        """Told about each promotion (the runtime emits ``ToolsPromoted`` with the running run's id)."""

    # -- what the model sees -------------------------------------------------------------------------

    @property
    def promoted(self) -> list[str]:
        """The promoted tool names, in promotion order."""
        return list(self._promoted)

    def plan(self) -> ToolPlan:
        plan = self._deferral.plan()
        if self._restore_pending and plan.catalog and plan.catalog.hash != self._restore_tried:
            self._restore(plan)
        return plan

    def tool_specs(self) -> list[ToolSpec]:
        """The loaded tools (sorted by name), then the promoted ones in the order they were promoted."""
        plan = self.plan()
        specs = [tool_spec(t) for t in plan.loaded]
        if plan.deferring:
            specs.extend(tool_spec(plan.by_name[name]) for name in self._promoted if name in plan.catalog)
        return specs

    def system_note(self) -> str:
        """The system-prompt note and ``<available-deferred-tools>`` block; ``""`` when nothing is deferred."""
        plan = self.plan()
        if not plan.deferring:
            return ""
        return f"{SYSTEM_NOTE_INTRO}\n\n{plan.catalog.render_capped()}"

    def lookup(self, model_name: str) -> HostTool | None:
        """Any offered tool by its model-facing name, deferred or not (a direct call is allowed)."""
        by_name = self.plan().by_name
        return by_name.get(model_name) or by_name.get(model_safe_name(model_name))  # a name stored before it was safe

    # -- the call path --------------------------------------------------------------------------------

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, progress: ProgressCallback | None = None
    ) -> ToolOutcome:
        """``Host.call``, plus promotion: of a deferred tool called directly, and of ``tool_search``'s matches."""
        plan = self.plan()
        if plan.deferring and not (server == TOOLS_SERVER and tool == TOOL_SEARCH):
            target = next((t for t in plan.tools if t.server == server and t.tool == tool), None)
            if target is not None and target.name in plan.catalog:
                self.promote([target.name], "direct_call")
        outcome = await self._deferral.host.call(server, tool, arguments, progress=progress)
        if server == TOOLS_SERVER and tool == TOOL_SEARCH and not outcome.is_error:
            structured = outcome.structured or {}
            names = structured.get("promote")
            if isinstance(names, list):
                self.promote([str(n) for n in names], "search")
        return outcome

    def server_identity(self, server: str) -> str | None:
        """The host's identity of ``server``, which grants are checked against (the view must pass it on)."""
        return self._deferral.host.server_identity(server)

    # -- promotions -----------------------------------------------------------------------------------

    def promote(self, names: Sequence[str], reason: PromotionReason) -> list[str]:
        """Append the deferred tools among ``names`` that are not promoted yet; returns those added."""
        plan = self._deferral.plan()
        added = [n for n in dict.fromkeys(names) if n in plan.catalog and n not in self._promoted]
        if not added:
            return []
        self._promoted.extend(added)
        self._restore_pending = False  # from now on the saved list is this one
        self._save(plan.catalog.hash)
        if self.listener is not None:
            self.listener(added, reason, plan.catalog.hash)
        return added

    def _save(self, catalog_hash: str) -> None:
        store = self._deferral.store
        if store is None:
            return
        try:
            store.save(self.conversation_id, catalog_hash, self._promoted)
        except OSError as exc:  # promotion still works for this session
            log.warning("could not save the promoted tools of %s: %s", self.conversation_id, exc)

    def _restore(self, plan: ToolPlan) -> None:
        """Bring back the saved promotions if the catalog is the one they were made with."""
        store = self._deferral.store
        saved = store.load(self.conversation_id) if store is not None else None
        if saved is None:
            self._restore_pending = False
            return
        catalog_hash, names = saved
        if catalog_hash != plan.catalog.hash:
            self._restore_tried = plan.catalog.hash
            return  # maybe a server is still starting: try again once the catalog changes
        self._restore_pending = False
        restored = [n for n in names if n in plan.catalog and n not in self._promoted]
        if restored:
            self._promoted.extend(restored)
            if self.listener is not None:
                self.listener(restored, "restored", catalog_hash)


_SAFE_ID = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


class PromotionStore:
    """``<folder>/<conversation id>.json`` holding ``{"catalog_hash": ..., "tool_names": [...]}`` (Whale's
    ``promoted_tools.json``), written atomically."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, conversation_id: str) -> Path | None:
        if not _SAFE_ID.match(conversation_id) or conversation_id.startswith("."):
            return None
        return self.folder / f"{conversation_id}.json"

    def save(self, conversation_id: str, catalog_hash: str, names: Sequence[str]) -> None:
        path = self._path(conversation_id)
        if path is not None:
            write_json_atomically(path, {"catalog_hash": catalog_hash, "tool_names": list(names)})

    def load(self, conversation_id: str) -> tuple[str, list[str]] | None:
        """The saved hash and names; ``None`` when there are none or the file is unreadable (logged)."""
        path = self._path(conversation_id)
        if path is None:
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable promoted tools file %s: %s", path, exc)
            return None
        if not isinstance(data, dict):
            return None
        catalog_hash, names = data.get("catalog_hash"), data.get("tool_names")
        if not isinstance(catalog_hash, str) or not isinstance(names, list):
            return None
        return catalog_hash, [str(n) for n in names]

    def delete(self, conversation_id: str) -> None:
        path = self._path(conversation_id)
        if path is not None:
            path.unlink(missing_ok=True)

    def prune(self, existing: set[str]) -> int:
        """Delete the files of conversations that no longer exist (purged); returns how many went."""
        removed = 0
        try:
            files = list(self.folder.glob("*.json"))
        except OSError:
            return 0
        for path in files:
            if path.stem not in existing:
                try:
                    path.unlink()
                    removed += 1
                except OSError as exc:
                    log.warning("could not remove %s: %s", path, exc)
        return removed


__all__ = [
    "ConversationTools",
    "DeferralSettings",
    "PromotionListener",
    "PromotionReason",
    "PromotionStore",
    "ToolDeferral",
    "ToolPlan",
    "estimate_tokens",
]
