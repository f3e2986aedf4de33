"""The deferred catalog and its search, with the vectors of Whale's deferred_test.go (seed-behaviours §1.6)."""

from __future__ import annotations

import hashlib

import pytest

from desktop_app.runtime.host.catalog import (
    MAX_SEARCH_RESULTS,
    Catalog,
    CatalogEntry,
    catalog_hash,
    make_entry,
)
from desktop_app.runtime.tool_names import qualify_tool_name, unique_tool_name


def entry(name: str, server: str, description: str) -> CatalogEntry:
    return make_entry(name, server, description)


def names(found: list[CatalogEntry]) -> list[str]:
    return [e.name for e in found]


def many(count: int) -> Catalog:
    return Catalog(entry(f"mcp__s__tool_{chr(97 + i % 26)}{chr(97 + i // 26)}", "s", "") for i in range(count))


# -- names (§1.5 vectors, as the catalog's names are built) ------------------------------------------


@pytest.mark.parametrize(
    ("server", "tool", "expected"),
    [
        ("git-hub", "create_issue", "mcp__git-hub__create_issue"),  # a hyphen is kept (issue 22)
        ("server" * 10, "tool" * 20, "mcp__serverserverserverserverserverserverserverserver_8a1cb7f35b"),
        ("  my server!! ", "read-file", "mcp__my_server__read-file"),
        ("---", "***", "mcp__server__tool"),
    ],
)
def test_qualified_names(server: str, tool: str, expected: str) -> None:
    assert qualify_tool_name(server, tool) == expected
    assert len(expected.encode()) <= 64


def test_unique_names() -> None:
    seen: set[str] = set()
    assert unique_tool_name("mcp__a__b", seen) == "mcp__a__b"
    assert unique_tool_name("mcp__a__b", seen) == "mcp__a__b_0bb8c475c3"


# -- catalog ---------------------------------------------------------------------------------------


def test_sorted_by_server_then_name() -> None:
    catalog = Catalog([entry("mcp__z__b", "z", "z b"), entry("mcp__a__c", "a", "a c"), entry("mcp__a__a", "a", "a a")])
    assert catalog.names() == ["mcp__a__a", "mcp__a__c", "mcp__z__b"]
    assert list(catalog.by_server()) == ["a", "z"]


def test_empty_description_becomes_mcp_tool_and_is_trimmed() -> None:
    assert make_entry("n", "s", "  ").description == "MCP tool"
    assert make_entry("n", "s", None).description == "MCP tool"
    assert make_entry("n", "s", "  hi \n").description == "hi"


def test_hash_is_sha256_of_go_json_in_catalog_order() -> None:
    catalog = Catalog([entry("mcp__s__y", "s", "y <b> & c"), entry("mcp__s__x", "s", "x desc é")])
    expected_json = (
        '[{"description":"x desc é","name":"mcp__s__x","server":"s"},'
        '{"description":"y \\u003cb\\u003e \\u0026 c","name":"mcp__s__y","server":"s"}]'
    )
    assert catalog.hash == hashlib.sha256(expected_json.encode()).hexdigest()
    assert Catalog().hash == hashlib.sha256(b"[]").hexdigest() == catalog_hash([])
    assert Catalog([entry("mcp__s__a", "s", "desc a")]).hash != Catalog([entry("mcp__s__b", "s", "desc b")]).hash


def test_schema_is_not_part_of_the_hash() -> None:
    a = Catalog([make_entry("n", "s", "d", {"properties": {"x": {}}})])
    b = Catalog([make_entry("n", "s", "d", {})])
    assert a.hash == b.hash


# -- search ----------------------------------------------------------------------------------------

ABC = Catalog(
    [
        entry("mcp__s__alpha", "s", "first tool"),
        entry("mcp__s__beta", "s", "second tool"),
        entry("mcp__s__gamma", "s", "third tool"),
    ]
)


def test_select_is_exact_and_in_catalog_order() -> None:
    assert names(ABC.search("select:mcp__s__gamma, mcp__s__alpha")) == ["mcp__s__alpha", "mcp__s__gamma"]
    assert ABC.search("select:nonexistent") == []
    assert ABC.search("select:,,,") == []
    assert ABC.search("select:MCP__S__ALPHA") == []  # case-sensitive


def test_select_is_not_capped() -> None:
    catalog = many(MAX_SEARCH_RESULTS + 5)
    found = catalog.search("select:" + ",".join(catalog.names()))
    assert len(found) == MAX_SEARCH_RESULTS + 5


def test_must_form_keeps_names_containing_the_word() -> None:
    catalog = Catalog(
        [
            entry("mcp__github__search_code", "github", "search code in repos"),
            entry("mcp__github__list_issues", "github", "list issues"),
            entry("mcp__slack__post_message", "slack", "post message"),
        ]
    )
    assert names(catalog.search("+github")) == ["mcp__github__list_issues", "mcp__github__search_code"]
    assert catalog.search("+nonexistent") == []
    assert len(catalog.search("+")) == 3  # an empty must matches every tool


def test_plus_github_search_ranks_search_tools_first() -> None:
    catalog = Catalog(
        [
            entry("mcp__github__search_code", "github", "search code in repos"),
            entry("mcp__github__list_issues", "github", "list issues"),
            entry("mcp__github__search_issues", "github", "search issues"),
        ]
    )
    # search_* score 2 + 2 (name); list_issues 2 only. Ties keep catalog order.
    assert names(catalog.search("+github search")) == [
        "mcp__github__search_code",
        "mcp__github__search_issues",
        "mcp__github__list_issues",
    ]


def test_must_extra_term_in_description_adds_one() -> None:
    catalog = Catalog([entry("mcp__gh__a", "gh", "open pull request"), entry("mcp__gh__b", "gh", "nothing")])
    assert names(catalog.search("+gh pull")) == ["mcp__gh__a", "mcp__gh__b"]


def test_regex_form_is_case_insensitive_and_unanchored() -> None:
    assert names(ABC.search("alpha")) == ["mcp__s__alpha"]
    assert names(Catalog([entry("mcp__s__Alpha", "s", "first tool")]).search("ALPHA")) == ["mcp__s__Alpha"]
    assert names(ABC.search("^mcp__s__(b|g)")) == ["mcp__s__beta", "mcp__s__gamma"]


def test_invalid_regex_is_a_literal() -> None:
    catalog = Catalog([entry("mcp__s__alpha(", "s", "open paren tool"), entry("mcp__s__beta", "s", "beta tool")])
    assert names(catalog.search("alpha(")) == ["mcp__s__alpha("]


def test_description_match_scores_below_a_name_match() -> None:
    catalog = Catalog([entry("mcp__s__t1", "s", "search repositories"), entry("mcp__s__t2", "s", "other")])
    assert names(catalog.search("repositor")) == ["mcp__s__t1"]
    ranked = Catalog([entry("mcp__a__x", "a", "mentions repo"), entry("mcp__b__repo", "b", "other")])
    assert names(ranked.search("repo")) == ["mcp__b__repo", "mcp__a__x"]
    assert names(ranked.search("re.o")) == ["mcp__b__repo", "mcp__a__x"]  # the same through the regex path


def test_blank_query_finds_nothing() -> None:
    assert ABC.search("") == [] and ABC.search("   ") == []


def test_scored_forms_are_capped_at_five_in_catalog_order() -> None:
    catalog = many(MAX_SEARCH_RESULTS + 5)
    found = catalog.search("mcp")
    assert names(found) == catalog.names()[:MAX_SEARCH_RESULTS]
    assert len(catalog.search("+tool")) == MAX_SEARCH_RESULTS


# -- rendering -------------------------------------------------------------------------------------


def test_render_format() -> None:
    catalog = Catalog(
        [entry("mcp__slack__post", "slack", "post message"), entry("mcp__github__search", "github", "search code")]
    )
    assert catalog.render() == (
        "<available-deferred-tools>\n"
        "[server: github] 1 tool\n"
        "  mcp__github__search — search code\n"
        "[server: slack] 1 tool\n"
        "  mcp__slack__post — post message\n"
        "</available-deferred-tools>"
    )
    assert Catalog().render() == ""


def brute_force(catalog: Catalog, query: str) -> list[str]:
    """The per-entry definition of the regex form (score 2 name, else 1 description; stable; cap 5)."""
    import re

    try:
        pattern = re.compile(query, re.IGNORECASE)
    except re.error:
        pattern = re.compile(re.escape(query), re.IGNORECASE)
    scored = []
    for index, e in enumerate(catalog.entries):
        score = 2 if pattern.search(e.name) else 1 if pattern.search(e.description) else 0
        if score:
            scored.append((index, score))
    scored.sort(key=lambda item: -item[1])
    return [catalog.entries[i].name for i, _ in scored[:MAX_SEARCH_RESULTS]]


@pytest.mark.parametrize(
    "query",
    [
        "alpha",
        "^mcp__b",
        "tool$",
        "a\\sb",
        "[^x]{3}end",
        "line.two",
        "x*",
        "^$",
        "(?:one|two)",
        "one(?=\\s)",
        "(?i)TWO",
        "\\Aline",
        "end\\Z",
        "first\\nline",
        "a(",
        "(",
    ],
)
def test_regex_scan_equals_the_per_entry_definition(query: str) -> None:
    catalog = Catalog(
        [
            entry("mcp__a__alpha_tool", "a", "line one\nline two end"),
            entry("mcp__a__beta", "a", "a b one end"),
            entry("mcp__b__gamma", "b", "first\nline"),
            entry("mcp__b__delta_tool", "b", "two tool"),
            entry("mcp__c__a(", "c", "x"),
            entry("mcp__c__eps", "c", "one two"),
        ]
    )
    assert names(catalog.search(query)) == brute_force(catalog, query)
