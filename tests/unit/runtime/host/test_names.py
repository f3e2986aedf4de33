"""Whale's qualified tool names: every vector of seed-behaviours §1.5."""

from __future__ import annotations

import hashlib

import pytest

from desktop_app.runtime.host.names import (
    parse_qualified_tool_name,
    qualify_tool_name,
    sanitize_component,
    unique_tool_name,
)


@pytest.mark.parametrize(
    ("server", "tool", "expected"),
    [
        ("git-hub", "create_issue", "mcp__git_hub__create_issue"),
        ("server" * 10, "tool" * 20, "mcp__serverserverserverserverserverserverserverserver_8a1cb7f35b"),
        ("  my server!! ", "read-file", "mcp__my_server__read_file"),
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
    assert parse_qualified_tool_name(qualify_tool_name("git-hub", "create_issue")) == ("git_hub", "create_issue")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("a_-b", "a__b"),  # a kept "_" followed by an invalid run gives "__"
        ("a---b", "a_b"),  # a run of invalid characters becomes one "_"
        ("__x__", "x"),
        ("  ", "fallback"),
        ("日本-語", "日本_語"),  # Unicode letters are kept
        ("v٣", "v٣"),  # Unicode decimal digits are kept
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


def test_multibyte_cut_never_exceeds_64_bytes() -> None:
    name = qualify_tool_name("é" * 40, "tool")
    assert len(name.encode()) <= 64
    assert name.startswith("mcp__é")
