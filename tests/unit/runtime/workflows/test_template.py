"""Variables, conditions and inputs of a workflow run (pure functions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.runtime.workflows.model import Condition
from desktop_app.runtime.workflows.parser import parse_workflow
from desktop_app.runtime.workflows.template import InputError, fill, holds, resolve_inputs

GOOD = Path(__file__).resolve().parents[3] / "fixtures" / "workflows" / "good"


def test_fill_inputs_and_step_outputs_unknown_or_unrun_is_empty() -> None:
    text = "Look at {{input.target}} then {{ List Changes }} and {{Not Run}}."
    assert fill(text, {"target": "src/"}, {"List Changes": "a.py"}) == "Look at src/ then a.py and ."


@pytest.mark.parametrize(
    ("answer", "word", "expected"),
    [
        ("All good. SAFE", "SAFE", True),
        ("Too risky. UNSAFE", "SAFE", False),  # a whole word: UNSAFE does not contain SAFE
        ("Too risky. UNSAFE", "UNSAFE", True),
        ("it is safe.", "SAFE", True),  # case is ignored
        ("errors: 3", "errors:", True),
        ("", "SAFE", False),
    ],
)
def test_contains_matches_whole_words_ignoring_case(answer: str, word: str, expected: bool) -> None:
    assert holds(Condition("Check", "contains", word), {}, {"Check": answer}) is expected


def test_not_empty_and_equals() -> None:
    assert holds(Condition("A", "not empty"), {}, {"A": " x "})
    assert not holds(Condition("A", "not empty"), {}, {"A": "  \n"})
    assert not holds(Condition("B", "not empty"), {}, {})  # a skipped step is empty
    assert holds(Condition("input.flag", "equals", "yes"), {"flag": " Yes "}, {})
    assert holds(Condition("input.flag", "equals", '"yes"'), {"flag": "yes"}, {})
    assert not holds(Condition("input.flag", "equals", "yes"), {"flag": "yes please"}, {})


def test_inputs_defaults_required_and_unknown() -> None:
    wf = parse_workflow(GOOD / "release-with-rollback")
    assert resolve_inputs(wf, {"environment": "staging"}) == {"environment": "staging", "notify": "no"}
    with pytest.raises(InputError, match=r"needs the input 'environment': environment: Where to release"):
        resolve_inputs(wf, {})
    with pytest.raises(InputError, match=r"has no input 'colour' \(its inputs: environment, notify\)"):
        resolve_inputs(wf, {"environment": "x", "colour": "red"})
