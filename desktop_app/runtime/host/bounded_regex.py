"""Regular expressions written by someone else (a model's ``tool_search`` query, a filter typed in the Tools
panel or given to ``switchboard tools``), run with a time bound.

Python's ``re`` backtracks without limit and never lets go of the interpreter while it does: a query like
``(\\w+\\s?)+$`` over a long description spins at 100 % CPU on the event loop, and not even SIGTERM stops it.
The ``regex`` module matches the same syntax (``VERSION0``: ``re``'s semantics), releases the GIL while it
matches (``concurrent``) and stops a match at a deadline. :class:`Deadline` spreads one time budget over every
match of a search; running out raises :class:`SearchTimeout`, a sentence saying what to do.
"""

from __future__ import annotations

import time

import regex

SEARCH_TIME_LIMIT_S = 1.0
"""How long one catalog search may match regular expressions, in all."""

PatternError = regex.error
"""Raised by :func:`compile_query` for a query that is not a valid regular expression."""


class SearchTimeout(ValueError):
    """A regular expression took longer than the search's time bound."""

    def __init__(self, query: str, limit: float) -> None:
        super().__init__(
            f"The regular expression {query!r} took longer than {limit:g} s to match and was stopped. "
            "Use a simpler pattern (a word, or '+word extra terms')."
        )
        self.query = query


def compile_query(query: str, *, ignore_case: bool, multiline: bool = False) -> regex.Pattern[str]:
    """``query`` compiled with ``re``'s semantics; :data:`PatternError` when it is not a valid expression."""
    flags = regex.VERSION0 | (regex.IGNORECASE if ignore_case else 0) | (regex.MULTILINE if multiline else 0)
    return regex.compile(query, flags)


class Deadline:
    """One search's time budget, shared by all of its matches."""

    def __init__(self, query: str, limit: float = SEARCH_TIME_LIMIT_S) -> None:
        self.query = query
        self.limit = limit
        self._end = time.monotonic() + limit

    def search(self, pattern: regex.Pattern[str], text: str, pos: int = 0) -> regex.Match[str] | None:
        """``pattern.search(text, pos)`` within what is left of the budget (GIL released while matching)."""
        left = self._end - time.monotonic()
        if left <= 0:
            raise SearchTimeout(self.query, self.limit)
        try:
            return pattern.search(text, pos, concurrent=True, timeout=left)
        except TimeoutError:
            raise SearchTimeout(self.query, self.limit) from None


__all__ = ["SEARCH_TIME_LIMIT_S", "Deadline", "PatternError", "SearchTimeout", "compile_query"]
