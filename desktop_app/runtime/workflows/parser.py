"""Reading a workflow folder (``workflows/<name>/SKILL.md``, nanobot's format) into a :class:`Workflow`.

The file: YAML front matter (``name``: lowercase words joined by ``-``, at most 64 characters, equal to the
folder's name; ``description``: required, at most 1024 characters; ``metadata``: an optional mapping; other
Agent Skills keys such as ``license`` are kept out of the way), then Markdown sections:

* ``## Inputs``: ``- **name** (required|optional): text. Default: value`` (the default may be in backticks);
* ``## Steps``: ``### N. Step Name`` sections numbered 1, 2, 3…, each with its prompt text, an optional
  ``**Condition:** {{Step}} contains X | not empty | equals Y`` line and an optional
  ``**On error:** stop | continue | <Step Name>`` line (a jump goes forward, to a later step); ``---`` rules
  between steps are not part of a prompt;
* ``## Output``: an optional template; other ``##`` sections are notes for people and are ignored.

Every variable must name a declared input or an earlier step (a condition or the output may name any step).
Every fault is collected with its line and field (:class:`WorkflowProblem`); one fault refuses the whole file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.workflows.model import (
    SKILL_FILE,
    Condition,
    OnError,
    Step,
    Workflow,
    WorkflowError,
    WorkflowInput,
    WorkflowProblem,
)
from desktop_app.runtime.workflows.template import INPUT_PREFIX, VARIABLE, unquote

MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_FILE_BYTES = 512 * 1024
NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_SECTION = re.compile(r"^##\s+(.+?)\s*#*\s*$")
_STEP = re.compile(r"^###\s+(.*?)\s*$")
_STEP_TITLE = re.compile(r"^(\d+)[.)]\s+(\S.*?)\s*$")
_INPUT = re.compile(r"^[-*]\s+\*\*([A-Za-z0-9_-]+)\*\*\s*\((required|optional)\)\s*:?\s*(.*)$", re.I)
_DEFAULT = re.compile(r"(?:^|[.;]\s*|\s)Default:\s*(.*)$", re.I)
_CONDITION = re.compile(r"^\*\*Condition:?\*\*:?\s*(.*)$", re.I)
_ON_ERROR = re.compile(r"^\*\*On error:?\*\*:?\s*(.*)$", re.I)
_CONDITION_EXPR = re.compile(r"^\{\{\s*([^{}]+?)\s*\}\}\s+(?:(not empty)|(contains|equals)\s+(.+))$", re.I)
_RULE = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")


class _Reader:
    """One file's parse: the problems found so far and the pieces read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[WorkflowProblem] = []

    def problem(self, line: int, field: str, message: str) -> None:
        self.problems.append(WorkflowProblem(self.path, line, field, message))


def _front_matter(text: str, reader: _Reader) -> tuple[dict[str, Any] | None, list[str], int, dict[str, int]]:
    """``(front matter, body lines, line number of the body's first line, key -> line)``; the front matter is
    ``None`` when it is missing or not YAML (the problem is noted; its fields are not checked on top)."""
    from desktop_app.runtime.host.jsonfiles import parse_yaml

    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        reader.problem(1, "frontmatter", "missing: the file must start with '---', then name: and description:")
        return None, lines, 1, {}
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        reader.problem(1, "frontmatter", "no closing '---' line")
        return None, [], len(lines) + 1, {}
    block = "\n".join(lines[1:end])
    keys: dict[str, int] = {}
    for i in range(1, end):
        match = re.match(r"^([A-Za-z_][\w-]*)\s*:", lines[i])
        if match:
            keys.setdefault(match.group(1), i + 1)
    try:
        data = parse_yaml(block, reader.path)
    except ConfigError as exc:
        line = (exc.line or 0) + 1 if exc.line else 1
        reader.problem(line, "frontmatter", f"{exc.problem} (quote the description if it holds ': ')")
        return None, lines[end + 1 :], end + 2, keys
    if data is None:
        data = {}
    if not isinstance(data, dict):
        reader.problem(2, "frontmatter", "must be a mapping of name:, description: and metadata:")
        data = {}
    return data, lines[end + 1 :], end + 2, keys


def _check_meta(
    data: dict[str, Any], keys: dict[str, int], folder: Path, reader: _Reader
) -> tuple[str, str, dict[str, str]]:
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        reader.problem(keys.get("name", 1), "name", "required (the folder's name, lowercase words joined by '-')")
        name = ""
    elif len(name) > MAX_NAME:
        reader.problem(keys["name"], "name", f"longer than {MAX_NAME} characters")
    elif not NAME.match(name):
        reader.problem(
            keys["name"],
            "name",
            f"{name!r}: only lowercase letters, digits and single '-' between them (e.g. code-review)",
        )
    elif name != folder.name:
        reader.problem(keys["name"], "name", f"{name!r} differs from its folder {folder.name!r}; they must be equal")
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        reader.problem(keys.get("description", 1), "description", "required (say what the workflow does, in quotes)")
        description = ""
    elif len(description) > MAX_DESCRIPTION:
        reader.problem(keys["description"], "description", f"longer than {MAX_DESCRIPTION} characters")
    raw_meta = data.get("metadata") or {}
    metadata: dict[str, str] = {}
    if not isinstance(raw_meta, dict):
        reader.problem(keys.get("metadata", 1), "metadata", "must be a mapping (key: value lines, indented)")
    else:
        metadata = {str(k): str(v) for k, v in raw_meta.items()}
    return name, " ".join(description.split()), metadata


def _sections(body: list[str], first_line: int) -> dict[str, tuple[int, list[tuple[int, str]]]]:
    """Each ``## Section`` (lowercased title) -> (heading line, its lines with their numbers)."""
    sections: dict[str, tuple[int, list[tuple[int, str]]]] = {}
    current: list[tuple[int, str]] | None = None
    fenced = False
    for offset, text in enumerate(body):
        number = first_line + offset
        if text.lstrip().startswith("```"):
            fenced = not fenced
        match = None if fenced else _SECTION.match(text)
        if match is not None:
            current = []
            sections.setdefault(match.group(1).strip().lower(), (number, current))
            continue
        if current is not None:
            current.append((number, text))
    return sections


def _inputs(lines: list[tuple[int, str]], reader: _Reader) -> tuple[WorkflowInput, ...]:
    found: dict[str, WorkflowInput] = {}
    for number, text in lines:
        stripped = text.strip()
        if not stripped or _RULE.match(stripped):
            continue
        if text[:1] in " \t" and found:  # an indented line continues the input before it
            continue
        match = _INPUT.match(stripped)
        if match is None and stripped[:2] not in ("- ", "* "):
            continue  # prose between the inputs is for people
        if match is None:
            reader.problem(number, "Inputs", "expected '- **name** (required|optional): text. Default: value'")
            continue
        name, kind, rest = match.group(1), match.group(2).lower(), match.group(3).strip()
        default: str | None = None
        found_default = _DEFAULT.search(rest)
        if found_default is not None:
            default = unquote(found_default.group(1).strip().rstrip("."))
            rest = rest[: found_default.start()].strip()
        if name in found:
            reader.problem(number, "Inputs", f"the input {name!r} is declared twice")
            continue
        found[name] = WorkflowInput(name, kind == "required", rest, default, number)
    return tuple(found.values())


def _step_body(number: int, name: str, start: int, lines: list[tuple[int, str]], reader: _Reader) -> Step:
    prompt: list[str] = []
    condition: Condition | None = None
    on_error = OnError()
    for line, text in lines:
        stripped = text.strip()
        cond = _CONDITION.match(stripped)
        err = _ON_ERROR.match(stripped)
        if cond is not None:
            expr = _CONDITION_EXPR.match(cond.group(1).strip())
            if expr is None:
                reader.problem(
                    line,
                    f"step {number} ({name}): Condition",
                    "expected '{{Step}} contains X', 'not empty' or 'equals Y'",
                )
            else:
                op = (expr.group(2) or expr.group(3)).lower()
                condition = Condition(expr.group(1), op, (expr.group(4) or "").strip(), line)  # type: ignore[arg-type]
        elif err is not None:
            value = unquote(err.group(1).strip().rstrip("."))
            if not value:
                reader.problem(line, f"step {number} ({name}): On error", "expected stop, continue or a step's name")
            elif value.lower() in ("stop", "continue"):
                on_error = OnError(value.lower())  # type: ignore[arg-type]
            else:
                on_error = OnError("jump", value)
        else:
            prompt.append(text)
    while prompt and (not prompt[-1].strip() or _RULE.match(prompt[-1])):
        prompt.pop()
    while prompt and not prompt[0].strip():
        prompt.pop(0)
    text = "\n".join(prompt)
    if not text.strip():
        reader.problem(start, f"step {number} ({name})", "the step has no text: write what the model should do")
    return Step(number, name, text, start, condition, on_error)


def _steps(heading: int, lines: list[tuple[int, str]], reader: _Reader) -> tuple[Step, ...]:
    groups: list[tuple[int, str, str, list[tuple[int, str]]]] = []
    fenced = False
    for number, text in lines:
        if text.lstrip().startswith("```"):
            fenced = not fenced
        match = None if fenced else _STEP.match(text)
        if match is not None:
            groups.append((number, match.group(1), "", []))
        elif groups:
            groups[-1][3].append((number, text))
        elif text.strip() and not _RULE.match(text):
            reader.problem(number, "Steps", "text before the first step: start each step with '### 1. Step Name'")
    if not groups:
        reader.problem(heading, "Steps", "no steps: add '### 1. Step Name' sections under '## Steps'")
        return ()
    steps: list[Step] = []
    for expected, (line, title, _unused, body) in enumerate(groups, start=1):
        match = _STEP_TITLE.match(title)
        if match is None:
            reader.problem(line, "Steps", f"{title!r}: a step title is '### N. Step Name'")
            continue
        number, name = int(match.group(1)), match.group(2).strip()
        if number != expected:
            reader.problem(
                line, f"step {number} ({name})", f"numbered {number}, expected {expected}: number steps 1, 2, 3…"
            )
        if any(s.name == name for s in steps):
            reader.problem(line, f"step {number} ({name})", "another step has the same name; step names must differ")
        if name.startswith(INPUT_PREFIX):
            reader.problem(line, f"step {number} ({name})", "a step name cannot start with 'input.'")
        steps.append(_step_body(number, name, line, body, reader))
    return tuple(steps)


def _check_references(
    steps: tuple[Step, ...], inputs: tuple[WorkflowInput, ...], output: list[tuple[int, str]], reader: _Reader
) -> None:
    input_names = {i.name for i in inputs}
    all_steps = [s.name for s in steps]

    def check(name: str, line: int, field: str, earlier: list[str]) -> None:
        if name.startswith(INPUT_PREFIX):
            key = name[len(INPUT_PREFIX) :].strip()
            if key not in input_names:
                reader.problem(line, field, f"{{{{{name}}}}}: no input named {key!r} under '## Inputs'")
        elif name not in earlier:
            where = "a later step" if name in all_steps else "no step has that name"
            reader.problem(line, field, f"{{{{{name}}}}}: {where}; a step can use only the inputs and earlier steps")

    for index, step in enumerate(steps):
        field = f"step {step.number} ({step.name})"
        earlier = all_steps[:index]
        for offset, text in enumerate(step.prompt.splitlines()):
            for match in VARIABLE.finditer(text):
                check(match.group(1), step.line + 1 + offset, field, earlier)
        if step.condition is not None:
            check(step.condition.subject, step.condition.line, f"{field}: Condition", all_steps)
        if step.on_error.action == "jump":
            target = step.on_error.target
            later = all_steps[index + 1 :]
            if target not in later:
                why = "an earlier step (jumps go forward)" if target in all_steps else "no step has that name"
                reader.problem(
                    step.line, f"{field}: On error", f"{target!r}: {why}; use stop, continue or a later step"
                )
    for line, row in output:
        for match in VARIABLE.finditer(row):
            check(match.group(1), line, "Output", all_steps)


def parse_text(text: str, folder: Path, *, source: str = "") -> Workflow:
    """Parse ``text`` as ``folder/SKILL.md``; ``WorkflowError`` lists every fault."""
    reader = _Reader(folder / SKILL_FILE)
    data, body, first, keys = _front_matter(text, reader)
    name, description, metadata = _check_meta(data, keys, folder, reader) if data is not None else ("", "", {})
    sections = _sections(body, first)
    inputs = _inputs(sections["inputs"][1], reader) if "inputs" in sections else ()
    if "steps" not in sections:
        reader.problem(first, "Steps", "missing: add a '## Steps' section with '### 1. Step Name' steps")
        steps: tuple[Step, ...] = ()
    else:
        steps = _steps(sections["steps"][0], sections["steps"][1], reader)
    output_rows = [(n, t) for n, t in sections["output"][1] if not _RULE.match(t)] if "output" in sections else []
    output = "\n".join(t for _n, t in output_rows).strip()
    _check_references(steps, inputs, output_rows, reader)
    if reader.problems:
        raise WorkflowError(sorted(reader.problems, key=lambda p: p.line))
    return Workflow(name, description, folder, inputs, steps, output or None, metadata, source)


def parse_workflow(folder: Path, *, source: str = "") -> Workflow:
    """Read and parse ``folder/SKILL.md``; ``WorkflowError`` names the file, line and field of each fault."""
    from desktop_app.runtime.files import read_config_text

    path = folder / SKILL_FILE
    try:
        text = read_config_text(path, limit=MAX_FILE_BYTES)
    except ConfigError as exc:
        raise WorkflowError([WorkflowProblem(path, 1, "file", exc.problem)]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkflowError([WorkflowProblem(path, 1, "file", f"cannot be read: {exc}")]) from None
    return parse_text(text, folder, source=source)


__all__ = ["MAX_DESCRIPTION", "MAX_NAME", "NAME", "parse_text", "parse_workflow"]
