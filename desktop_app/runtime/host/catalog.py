"""The deferred tool catalog: the tools the model can find with ``tool_search`` (seed-behaviours §1.6).

This module owns the pure data and rules: catalog entries sorted by server then name, the content
hash (SHA-256 over Go-style JSON of ``{"description","name","server"}``), the three query forms of
:meth:`Catalog.search` (``select:A,B`` exact and uncapped; ``+must extra…`` and the regex form scored
and capped at 5, sorted stably by descending score so ties keep catalog order), and the
``<available-deferred-tools>`` block with its 4,000-character cap (laid out by :mod:`.catalog_index`: every
server named, a fair share of the space each). No I/O, no state beyond the entries.
"""

from __future__ import annotations

import bisect
import hashlib
import heapq
import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from desktop_app.runtime.host.catalog_entry import (
    CLOSE_TAG,
    DEFAULT_DESCRIPTION,
    OPEN_TAG,
    CatalogEntry,
    make_entry,
)

if TYPE_CHECKING:
    from desktop_app.runtime.host.catalog_index import DeferredIndex

CATALOG_SERVER = "switchboard.tools"
CATALOG_TOOL = "tool_search"
"""The one tool of ``switchboard.tools`` (``builtins.tools``), which searches this catalog."""
"""The built-in server that offers ``tool_search`` (see :mod:`desktop_app.runtime.builtins.tools`)."""
MAX_SEARCH_RESULTS = 5
DEFERRED_BLOCK_LIMIT = 4000
_LITERAL = re.compile(r"[A-Za-z0-9_ \-:/,@#%=~'\"]*")
"""Patterns made only of these characters mean themselves as a regex: they take the substring fast path."""


def _go_json(value: Any) -> str:
    """``json.dumps`` as Go's ``json.Marshal`` writes it: sorted keys, no spaces, HTML-safe escapes."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    for char, escape in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escape)
    return text


def catalog_hash(entries: Iterable[CatalogEntry]) -> str:
    """SHA-256 hex of the JSON array of ``{"description","name","server"}`` in catalog order (``[]`` if empty)."""
    rows = [{"description": e.description, "name": e.name, "server": e.server} for e in entries]
    return hashlib.sha256(_go_json(rows).encode("utf-8")).hexdigest()


class Catalog:
    """An immutable, sorted catalog with its hash; search, names and rendering."""

    def __init__(self, entries: Iterable[CatalogEntry] = ()) -> None:
        self._entries: tuple[CatalogEntry, ...] = tuple(sorted(entries, key=lambda e: (e.server, e.name)))
        self._by_name: dict[str, int] = {}
        for index, entry in enumerate(self._entries):
            self._by_name.setdefault(entry.name, index)
        self._names_lower = [e.name.lower() for e in self._entries]
        self._descriptions_lower = [e.description.lower() for e in self._entries]
        self._hash = catalog_hash(self._entries)
        # For the regex form: all names (and all descriptions) as one text, one per line, scanned at once.
        # A text holding a line break cannot be a line of its own; those are checked one by one.
        self._names_text = _Lines([e.name for e in self._entries])
        self._descriptions_text = _Lines([e.description for e in self._entries])
        self._indexes: dict[int | None, DeferredIndex] = {}

    # -- reading ------------------------------------------------------------------------------------

    @property
    def entries(self) -> tuple[CatalogEntry, ...]:
        return self._entries

    @property
    def hash(self) -> str:
        return self._hash

    def __len__(self) -> int:
        return len(self._entries)

    def __bool__(self) -> bool:
        return bool(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def get(self, name: str) -> CatalogEntry | None:
        index = self._by_name.get(name)
        return None if index is None else self._entries[index]

    def names(self) -> list[str]:
        return [e.name for e in self._entries]

    def by_server(self) -> dict[str, list[CatalogEntry]]:
        """Entries grouped by server, servers and tools in catalog order."""
        groups: dict[str, list[CatalogEntry]] = {}
        for entry in self._entries:
            groups.setdefault(entry.server, []).append(entry)
        return groups

    # -- search -------------------------------------------------------------------------------------

    def search(
        self, query: str, *, limit: int | None = MAX_SEARCH_RESULTS, time_limit: float | None = None
    ) -> list[CatalogEntry]:
        """The entries ``query`` finds, best first (see the module docstring); a blank query finds nothing.

        ``limit`` caps the scored forms (``tool_search``: 5; the tool panel and ``switchboard tools``: none).
        The regex form matches within ``time_limit`` seconds in all (default ``SEARCH_TIME_LIMIT_S``), else
        raises :class:`~.bounded_regex.SearchTimeout` (see :mod:`.bounded_regex`)."""
        query = query.strip()
        if not query or not self._entries:
            return []
        if query.startswith("select:"):
            wanted = {part.strip() for part in query[len("select:") :].split(",") if part.strip()}
            return [e for e in self._entries if e.name in wanted]
        if query.startswith("+"):
            scores = self._must_scores(query)
        else:
            from desktop_app.runtime.host.bounded_regex import SEARCH_TIME_LIMIT_S, Deadline

            scores = self._regex_scores(query, Deadline(query, time_limit or SEARCH_TIME_LIMIT_S))
        rank = lambda item: (-item[1], item[0])  # noqa: E731 - stable: ties keep catalog order
        best = sorted(scores, key=rank) if limit is None else heapq.nsmallest(limit, scores, key=rank)
        return [self._entries[index] for index, _ in best]

    def _must_scores(self, query: str) -> list[tuple[int, int]]:
        terms = query.split()
        must = terms[0][1:].lower()
        extras = [term.lower() for term in terms[1:]]
        names, descriptions = self._names_lower, self._descriptions_lower
        scores: list[tuple[int, int]] = []
        for index, name in enumerate(names):
            if must not in name:
                continue
            score = 2
            for term in extras:
                if term in name:
                    score += 2
                elif term in descriptions[index]:
                    score += 1
            scores.append((index, score))
        return scores

    def _regex_scores(self, query: str, deadline: Deadline) -> list[tuple[int, int]]:
        from desktop_app.runtime.host.bounded_regex import PatternError, compile_query

        try:
            pattern = compile_query(query, ignore_case=True)
        except PatternError:
            pattern = compile_query(re.escape(query), ignore_case=True)  # an invalid regex is matched as a literal
            if query.isascii():
                return self._substring_scores(query.lower())
        if query.isascii() and _LITERAL.fullmatch(query):
            return self._substring_scores(query.lower())  # a plain word: the same as the regex, faster
        # One scan of the joined texts, unless the pattern could behave differently there, or is anchored at
        # the start (re skips straight to the start of a single text, but tries every position of a joined one).
        if _JOINABLE.search(query.replace("(?:", "")) is None and not query.startswith("^"):
            in_names = self._names_text.candidates(query, pattern, deadline)
            in_descriptions = self._descriptions_text.candidates(query, pattern, deadline)
            if in_names is not None and in_descriptions is not None:
                named = set(in_names)
                scores = [(index, 2) for index in in_names]
                scores.extend((index, 1) for index in in_descriptions if index not in named)
                return scores
        scores = []
        for index, entry in enumerate(self._entries):
            if deadline.search(pattern, entry.name):
                scores.append((index, 2))
            elif deadline.search(pattern, entry.description):
                scores.append((index, 1))
        return scores

    def _substring_scores(self, needle: str) -> list[tuple[int, int]]:
        names, descriptions = self._names_lower, self._descriptions_lower
        scores: list[tuple[int, int]] = []
        for index, name in enumerate(names):
            if needle in name:
                scores.append((index, 2))
            elif needle in descriptions[index]:
                scores.append((index, 1))
        return scores

    # -- rendering ----------------------------------------------------------------------------------

    def index(self, limit: int | None = DEFERRED_BLOCK_LIMIT) -> DeferredIndex:
        """The ``<available-deferred-tools>`` block within ``limit`` characters and the names it lists
        (computed once per limit; see :mod:`.catalog_index`)."""
        found = self._indexes.get(limit)
        if found is None:
            from desktop_app.runtime.host.catalog_index import build_index

            found = self._indexes[limit] = build_index(self.by_server(), limit)
        return found

    def render(self) -> str:
        """The whole ``<available-deferred-tools>`` block, every tool listed; ``""`` for an empty catalog."""
        return self.index(None).text

    def render_capped(self, limit: int = DEFERRED_BLOCK_LIMIT) -> str:
        """The block within ``limit`` characters: every server named, a fair share of the space each."""
        return self.index(limit).text


if TYPE_CHECKING:
    from regex import Pattern

    from desktop_app.runtime.host.bounded_regex import Deadline

_JOINABLE = re.compile(r"\(\?|\\[AZ]")
"""A regex with these (lookarounds, inline flags, ``\\A``/``\\Z``) could behave differently on joined
lines: it is matched entry by entry instead."""


class _Lines:
    """Texts joined by newlines, for one regex scan over all of them (``re.MULTILINE`` keeps ``^``/``$``
    per text). Texts that contain a newline are left empty in the join and checked one by one."""

    def __init__(self, texts: list[str]) -> None:
        self._texts = texts
        self._odd = [i for i, text in enumerate(texts) if "\n" in text]
        self._odd_set = odd = set(self._odd)
        joined = ["" if i in odd else text for i, text in enumerate(texts)]
        self._text = "\n".join(joined)
        # ASCII text lower-cased once lets a lower-case pattern run case-sensitively: the same matches as
        # re.IGNORECASE, but with the regex engine's literal-prefix search (IGNORECASE turns that off).
        self._lower = self._text.lower() if self._text.isascii() else None
        self._starts: list[int] = []
        offset = 0
        for text in joined:
            self._starts.append(offset)
            offset += len(text) + 1

    def candidates(self, query: str, single: Pattern[str], deadline: Deadline) -> list[int] | None:
        """The indices of the texts ``single`` (``query`` compiled with IGNORECASE) finds, in one scan within
        ``deadline``; ``None`` when a match crossed a line break (the caller then matches one by one)."""
        from desktop_app.runtime.host.bounded_regex import compile_query

        found: list[int] = []
        starts, texts = self._starts, self._texts
        if self._lower is not None and query.isascii() and query == query.lower():
            text, lines = self._lower, compile_query(query, ignore_case=False, multiline=True)
        else:
            text, lines = self._text, compile_query(query, ignore_case=True, multiline=True)
        end, count, position = len(text), len(starts), 0
        while position <= end:
            match = deadline.search(lines, text, position)
            if match is None:
                break
            if "\n" in match.group():
                return None
            line = bisect.bisect_right(starts, match.start()) - 1
            # Confirmed on the text alone: exactly the per-entry semantics.
            if line not in self._odd_set and deadline.search(single, texts[line]):
                found.append(line)
            position = starts[line + 1] if line + 1 < count else end + 1
        found.extend(i for i in self._odd if deadline.search(single, texts[i]))
        return found


__all__ = [
    "CATALOG_SERVER",
    "CATALOG_TOOL",
    "CLOSE_TAG",
    "DEFAULT_DESCRIPTION",
    "DEFERRED_BLOCK_LIMIT",
    "MAX_SEARCH_RESULTS",
    "OPEN_TAG",
    "Catalog",
    "CatalogEntry",
    "catalog_hash",
    "make_entry",
]
