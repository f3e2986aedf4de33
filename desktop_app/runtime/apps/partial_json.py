"""Best-effort reading of a JSON object the model is still writing (``ui/notifications/tool-input-partial``).

:func:`recover_object` closes what is open: an unfinished string value is cut where it stands and closed, an
unfinished key, number or literal is dropped with the member it starts, and open arrays and objects are
closed. The result is ``None`` until there is an object to show. One pass over the text, no retries.
"""

from __future__ import annotations

import json
import re
from typing import Any

_PARTIAL_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{0,3})?$")


def _closers(stack: list[str]) -> str:
    return "".join("}" if opener == "{" else "]" for opener in reversed(stack))


def recover_object(text: str) -> dict[str, Any] | None:
    """The object ``text`` has written so far, or ``None`` (see the module docstring)."""
    start = text.find("{")
    if start < 0:
        return None
    stack: list[str] = []
    expect: list[str] = []  # per level: "key", "colon", "value", "comma"
    safe = ""  # the longest prefix that is complete once its open structures are closed
    in_string = False
    string_is_key = False
    escape = False
    string_start = 0
    i = start
    n = len(text)
    while i < n:
        ch = text[i]
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
                if string_is_key:
                    expect[-1] = "colon"
                else:
                    expect[-1] = "comma"
                    safe = text[: i + 1] + _closers(stack)
            i += 1
            continue
        if ch in "{[":
            if stack and expect[-1] == "value":
                expect[-1] = "comma"
            stack.append(ch)
            expect.append("key" if ch == "{" else "value")
            safe = text[: i + 1] + _closers(stack)
        elif ch in "}]":
            if not stack:
                break
            stack.pop()
            expect.pop()
            safe = text[: i + 1] + _closers(stack)
            if not stack:
                break
        elif ch == '"':
            in_string = True
            string_is_key = expect[-1] == "key"
            string_start = i
        elif ch == ":":
            expect[-1] = "value"
        elif ch == ",":
            # the value before the comma is complete (numbers and literals end here)
            safe = text[:i] + _closers(stack)
            expect[-1] = "key" if stack[-1] == "{" else "value"
        elif not ch.isspace() and expect and expect[-1] == "value":
            # a number or a literal: complete only once a delimiter follows
            j = i
            while j < n and text[j] not in ",}] \t\r\n":
                j += 1
            if j < n:
                expect[-1] = "comma"
                safe = text[:j] + _closers(stack)
                i = j
                continue
            break
        i += 1
    candidates: list[str] = []
    if in_string and not string_is_key and stack:
        body = _PARTIAL_ESCAPE.sub("", text[string_start:])
        candidates.append(text[:string_start] + body + '"' + _closers(stack))
    candidates.append(safe)
    for candidate in candidates:
        if not candidate:
            continue
        try:
            value = json.loads(candidate[candidate.find("{") :])
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


__all__ = ["recover_object"]
