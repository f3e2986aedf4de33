"""Filling a workflow's variables and testing its conditions: pure functions, no I/O.

Variables are ``{{input.name}}`` (an input's value) and ``{{Step Name}}`` (that step's answer; ``""`` for a step
that was skipped, failed or has not run). Conditions are decided by these rules, so the same outputs always take
the same path:

* ``contains X``: ``X`` as a whole word (or words), ignoring case: ``{{Check}} contains SAFE`` is false for an
  answer that says only ``UNSAFE``; an ``X`` that starts or ends with punctuation is matched as plain text;
* ``not empty``: the value has something besides spaces;
* ``equals Y``: the value, trimmed, is ``Y``, ignoring case.

``X`` and ``Y`` may be quoted (``"..."``, ``'...'`` or backticks); the quotes are not part of the text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_app.runtime.workflows.model import Condition, Workflow

VARIABLE = re.compile(r"\{\{\s*([^{}]+?)\s*\}\}")
INPUT_PREFIX = "input."


class InputError(ValueError):
    """The inputs given for a run do not fit the workflow (unknown, or a required one missing)."""


def unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        return text[1:-1]
    return text


def variables(text: str) -> list[str]:
    """The variable names ``text`` uses, in order (``input.x`` or a step name)."""
    return [m.group(1) for m in VARIABLE.finditer(text)]


def value_of(name: str, inputs: Mapping[str, str], outputs: Mapping[str, str]) -> str:
    if name.startswith(INPUT_PREFIX):
        return inputs.get(name[len(INPUT_PREFIX) :].strip(), "")
    return outputs.get(name, "")


def fill(text: str, inputs: Mapping[str, str], outputs: Mapping[str, str]) -> str:
    """``text`` with every variable replaced by its value."""
    return VARIABLE.sub(lambda m: value_of(m.group(1), inputs, outputs), text)


def _contains(haystack: str, needle: str) -> bool:
    if not needle:
        return True
    pattern = re.escape(needle)
    if needle[0].isalnum() or needle[0] == "_":
        pattern = r"(?<!\w)" + pattern
    if needle[-1].isalnum() or needle[-1] == "_":
        pattern += r"(?!\w)"
    return re.search(pattern, haystack, re.IGNORECASE) is not None


def holds(condition: Condition, inputs: Mapping[str, str], outputs: Mapping[str, str]) -> bool:
    """Whether ``condition`` is true for these values (see the module for the rules)."""
    subject = value_of(condition.subject, inputs, outputs)
    if condition.op == "not empty":
        return bool(subject.strip())
    expected = fill(unquote(condition.value), inputs, outputs)
    if condition.op == "equals":
        return subject.strip().casefold() == expected.strip().casefold()
    return _contains(subject, expected.strip())


def resolve_inputs(workflow: Workflow, given: Mapping[str, str]) -> dict[str, str]:
    """The run's input values: ``given`` with defaults for the rest; ``InputError`` says what does not fit."""
    known = {i.name for i in workflow.inputs}
    unknown = sorted(set(given) - known)
    if unknown:
        names = ", ".join(sorted(known)) or "none"
        raise InputError(
            f"Workflow {workflow.name!r} has no input {', '.join(map(repr, unknown))} (its inputs: {names})."
        )
    values: dict[str, str] = {}
    missing: list[str] = []
    for item in workflow.inputs:
        if item.name in given:
            values[item.name] = str(given[item.name])
        elif item.default is not None:
            values[item.name] = item.default
        elif item.required:
            missing.append(item.name)
        else:
            values[item.name] = ""
    if missing:
        raise InputError(
            f"Workflow {workflow.name!r} needs the input {', '.join(map(repr, missing))}: "
            + "; ".join(f"{i.name}: {i.description}" for i in workflow.inputs if i.name in missing)
        )
    return values


__all__ = [
    "INPUT_PREFIX",
    "VARIABLE",
    "InputError",
    "fill",
    "holds",
    "resolve_inputs",
    "unquote",
    "value_of",
    "variables",
]
