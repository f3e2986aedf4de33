"""Qualified tool names: the vectors of seed-behaviours §1.5, with issue 22's rule on top (hyphens kept, only
``^[a-zA-Z0-9_-]{1,64}$`` ever comes out)."""

from __future__ import annotations

import hashlib

import pytest

from desktop_app.runtime.tool_names import (
    PROVIDER_NAME_PATTERN,
    model_safe_name,
    parse_qualified_tool_name,
    qualify_tool_name,
    sanitize_component,
    unique_tool_name,
)


@pytest.mark.parametrize(
    ("server", "tool", "expected"),
    [
        ("git-hub", "create_issue", "mcp__git-hub__create_issue"),  # a hyphen is kept (issue 22)
        ("server" * 10, "tool" * 20, "mcp__serverserverserverserverserverserverserverserver_8a1cb7f35b"),
        ("  my server!! ", "read-file", "mcp__my_server__read-file"),
        ("---", "***", "mcp__server__tool"),
    ],
)
def test_qualify_tool_name_vectors(server: str, tool: str, expected: str) -> None:
    assert qualify_tool_name(server, tool) == expected


def test_long_name_is_exactly_64_bytes_with_sha1_of_raw() -> None:
    name = qualify_tool_name("server" * 10, "tool" * 20)
    raw = "mcp__" + "server" * 10 + "__" + "tool" * 20
    assert len(name.encode()) == 64
    assert name.endswith("_" + hashlib.sha1(raw.encode()).hexdigest()[:10])


def test_upstream_vector_parses_back() -> None:
    assert parse_qualified_tool_name(qualify_tool_name("git-hub", "create_issue")) == ("git-hub", "create_issue")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("a_-b", "a_-b"),  # "-" is legal for every provider: kept
        ("a---b", "a---b"),
        ("a.b c", "a_b_c"),  # a run of other characters becomes one "_"
        ("a.!b", "a_b"),
        ("__x__", "x"),
        ("-x-", "x"),
        ("  ", "fallback"),
        ("café", "cafe"),  # an accent goes, the letter stays
        # letters lost: a hash of the original keeps it apart
        ("日本-語", "fallback_" + hashlib.sha1("日本-語".encode()).hexdigest()[:8]),
        ("v٣", "v_" + hashlib.sha1("v٣".encode()).hexdigest()[:8]),
    ],
)
def test_sanitize_component(value: str, expected: str) -> None:
    assert sanitize_component(value, "fallback") == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("mcp__a__b__x", ("a", "b__x")),
        ("mcp__git_hub__create_issue", ("git_hub", "create_issue")),
        ("mcp__a", None),
        ("mcp____b", None),
        ("mcp__a__", None),
        ("tool_search", None),
    ],
)
def test_parse_qualified_tool_name(name: str, expected: tuple[str, str] | None) -> None:
    assert parse_qualified_tool_name(name) == expected


def test_unique_tool_name_first_use_then_hash_suffix() -> None:
    seen: set[str] = set()
    assert unique_tool_name("mcp__a__b", seen) == "mcp__a__b"
    assert unique_tool_name("mcp__a__b", seen) == "mcp__a__b_0bb8c475c3"
    assert seen == {"mcp__a__b", "mcp__a__b_0bb8c475c3"}


def test_unique_tool_name_then_counter_suffixes() -> None:
    seen = {"mcp__a__b", "mcp__a__b_0bb8c475c3"}
    assert unique_tool_name("mcp__a__b", seen) == "mcp__a__b_2"
    assert unique_tool_name("mcp__a__b", seen) == "mcp__a__b_3"


def test_unique_tool_name_long_base_stays_within_64_bytes() -> None:
    base = qualify_tool_name("server" * 10, "tool" * 20)
    seen: set[str] = set()
    unique_tool_name(base, seen)
    second = unique_tool_name(base, seen)
    third = unique_tool_name(base, seen)
    assert second != base
    assert third.endswith("_2")
    assert all(len(name.encode()) <= 64 for name in (second, third))


def test_non_ascii_names_never_reach_a_provider() -> None:
    name = qualify_tool_name("é" * 40, "tool")
    assert name == "mcp__" + "e" * 40 + "__tool"
    assert PROVIDER_NAME_PATTERN.match(qualify_tool_name("日本" * 30, "検索"))
    assert qualify_tool_name("x", "検索") != qualify_tool_name("x", "翻訳")  # distinct names stay distinct


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("load_skill", "load_skill"),
        ("resolve-library-id", "resolve-library-id"),  # a documented name is never rewritten
        ("_private", "_private"),  # already legal: unchanged
        ("chat-with-feature-dev.code-explorer", "chat-with-feature-dev_code-explorer"),
        ("chat-with-a b", "chat-with-a_b"),
    ],
)
def test_model_safe_name(name: str, expected: str) -> None:
    assert model_safe_name(name) == expected


def test_model_safe_name_shortens_long_names_with_a_hash() -> None:
    long_a, long_b = "chat-with-" + "a" * 60 + ".x", "chat-with-" + "a" * 60 + ".y"
    short_a, short_b = model_safe_name(long_a), model_safe_name(long_b)
    assert short_a != short_b and short_a == model_safe_name(long_a)  # deterministic and collision-free
    assert all(PROVIDER_NAME_PATTERN.match(n) for n in (short_a, short_b))
