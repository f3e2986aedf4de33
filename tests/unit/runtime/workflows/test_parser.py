"""Parsing nanobot's workflow format against the fixtures (tests/fixtures/workflows): the shapes of nanobot's own
examples (a review, a conditional fix, a deploy with rollback) and broken files, each fault named by path:line
and field, the whole file refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.runtime.workflows.model import OnError, WorkflowError
from desktop_app.runtime.workflows.parser import parse_text, parse_workflow

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "workflows"
GOOD = FIXTURES / "good"
BROKEN = FIXTURES / "broken"


def problems(name: str) -> list[str]:
    with pytest.raises(WorkflowError) as caught:
        parse_workflow(BROKEN / name)
    base = str(BROKEN / name / "SKILL.md")
    return [str(p).replace(base, "SKILL.md") for p in caught.value.problems]


def test_review_shape_inputs_defaults_steps_and_output() -> None:
    wf = parse_workflow(GOOD / "pr-review", source="project")
    assert (wf.name, wf.source, wf.uri) == ("pr-review", "project", "workflow:///pr-review")
    assert wf.description.startswith("Review the changed files")
    assert wf.metadata == {"createdAt": "2026-03-02T10:00:00Z", "author": "switchboard-tests"}
    assert [(i.name, i.required, i.default) for i in wf.inputs] == [
        ("target", False, "src/"),
        ("focus", False, "error handling"),
    ]
    assert [(s.number, s.name) for s in wf.steps] == [(1, "List Changes"), (2, "Review Files")]
    assert wf.steps[0].prompt == "List the files changed under {{input.target}}, one per line."  # the --- rule is gone
    assert wf.steps[1].prompt.startswith("Review these files:\n{{List Changes}}")
    assert wf.output == "Review of {{input.target}}:\n{{Review Files}}"


def test_conditional_fix_shape() -> None:
    wf = parse_workflow(GOOD / "safe-fix")
    assert wf.output is None and wf.inputs[0].required and wf.inputs[0].default is None
    fix, report = wf.steps[2], wf.steps[3]
    assert (fix.condition.subject, fix.condition.op, fix.condition.value) == ("Judge Safety", "contains", "SAFE")  # type: ignore[union-attr]
    assert str(report.condition) == "{{Judge Safety}} contains UNSAFE"
    assert "**Condition:**" not in fix.prompt


def test_deploy_with_rollback_shape() -> None:
    wf = parse_workflow(GOOD / "release-with-rollback")
    rules = {s.name: s.on_error for s in wf.steps}
    assert rules["Run Checks"] == OnError("continue")
    assert rules["Release"] == OnError("jump", "Roll Back") == rules["Check Health"]
    assert rules["Roll Back"] == OnError()  # stop is the default
    assert wf.jump_targets() == {"Roll Back"}
    assert str(wf.steps[3].condition) == "{{input.notify}} equals yes"


def test_nanobots_own_test_data_shape_with_extra_front_matter_keys() -> None:
    text = (
        "---\nname: test-workflow\ndescription: A test.\nlicense: MIT\ncompatibility: nanobot >= 0.1.0\n"
        'metadata:\n  createdAt: "2026-01-15T09:00:00Z"\n---\n\n## Inputs\n\n- **input_name** (required): A '
        "parameter.\n\n## Steps\n\n### 1. first_step\nDo something.\n\n---\n\n### 2. second_step\nDo more.\n\n---\n\n"
        "## Output\n\nDone.\n"
    )
    wf = parse_text(text, Path("/w/test-workflow"))
    assert [s.prompt for s in wf.steps] == ["Do something.", "Do more."]
    assert wf.output == "Done."


def test_bad_name_is_refused_with_its_line() -> None:
    assert problems("bad-name") == [
        "SKILL.md:2: name: 'Bad_Name': only lowercase letters, digits and single '-' between them (e.g. code-review)"
    ]


def test_name_must_equal_the_folder() -> None:
    text = '---\nname: other\ndescription: "x"\n---\n## Steps\n### 1. A\nDo.\n'
    with pytest.raises(WorkflowError) as caught:
        parse_text(text, Path("/w/mine"))
    assert [str(p) for p in caught.value.problems] == [
        "/w/mine/SKILL.md:2: name: 'other' differs from its folder 'mine'; they must be equal"
    ]


def test_missing_description_and_steps() -> None:
    assert problems("no-steps") == [
        "SKILL.md:1: description: required (say what the workflow does, in quotes)",
        "SKILL.md:4: Steps: missing: add a '## Steps' section with '### 1. Step Name' steps",
    ]


def test_unknown_variables_later_steps_bad_jumps_and_numbers() -> None:
    assert problems("bad-refs") == [
        "SKILL.md:9: Inputs: expected '- **name** (required|optional): text. Default: value'",
        "SKILL.md:13: step 1 (First): On error: 'Nowhere': no step has that name; use stop, continue or a later step",
        "SKILL.md:14: step 1 (First): {{input.unknown}}: no input named 'unknown' under '## Inputs'",
        "SKILL.md:14: step 1 (First): {{Second}}: a later step; a step can use only the inputs and earlier steps",
        "SKILL.md:18: step 3 (Second): numbered 3, expected 2: number steps 1, 2, 3…",
        "SKILL.md:18: step 3 (Second): On error: 'First': an earlier step (jumps go forward); use stop, continue or "
        "a later step",
    ]


def test_invalid_yaml_names_the_line() -> None:
    assert problems("bad-yaml") == [
        "SKILL.md:3: frontmatter: invalid YAML: mapping values are not allowed here "
        "(quote the description if it holds ': ')"
    ]


def test_unreadable_condition() -> None:
    assert problems("bad-condition") == [
        "SKILL.md:14: step 2 (Act): Condition: expected '{{Step}} contains X', 'not empty' or 'equals Y'"
    ]


def test_no_front_matter() -> None:
    with pytest.raises(WorkflowError) as caught:
        parse_text("## Steps\n### 1. A\nDo.\n", Path("/w/a"))
    assert [p.field for p in caught.value.problems] == ["frontmatter"]
