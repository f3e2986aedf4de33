"""A catalog search's regular expression is bounded in time: a pattern that backtracks catastrophically stops
at the bound with a sentence saying what to do (``SearchTimeout``), on both scan paths (joined lines and entry
by entry); ordinary patterns keep ``re``'s semantics."""

from __future__ import annotations

import time

import pytest

from desktop_app.runtime.host.bounded_regex import SearchTimeout
from desktop_app.runtime.host.catalog import Catalog, make_entry

EVIL = r"(a|aa)+$"  # exponential backtracking over "aaa…a!", in re and in the regex module alike
LONG = Catalog([make_entry("mcp__s__tool", "s", "a" * 60 + "!"), make_entry("mcp__s__other", "s", "other")])


@pytest.mark.parametrize("query", [EVIL, "(?:" + EVIL + ")", "(?s)" + EVIL, r"\A.*?" + EVIL])  # joined, per entry
def test_a_catastrophic_pattern_stops_at_the_time_bound(query: str) -> None:
    started = time.monotonic()
    with pytest.raises(SearchTimeout, match=r"took longer than 0\.2 s .* Use a simpler pattern"):
        LONG.search(query, time_limit=0.2)
    assert time.monotonic() - started < 0.6  # the bound, plus the regex engine's check interval


def test_the_reported_pattern_finishes_within_the_bound() -> None:
    started = time.monotonic()
    LONG.search(r"(\w+\s?)+$", time_limit=0.2)  # spun forever under re
    assert time.monotonic() - started < 0.6


def test_ordinary_patterns_still_match_with_res_semantics() -> None:
    assert [e.name for e in LONG.search(r"oth(?=er)")] == ["mcp__s__other"]
    assert [e.name for e in LONG.search(r"^mcp__s__t")] == ["mcp__s__tool"]
    assert [e.name for e in LONG.search("tool(")] == []  # an invalid regex is a literal
