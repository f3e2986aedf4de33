"""Recovering the arguments the model is still writing (``tool-input-partial``, issue 26)."""

from __future__ import annotations

import json

from desktop_app.runtime.apps.partial_json import recover_object


def test_unfinished_values_are_closed_or_dropped() -> None:
    assert recover_object("") is None and recover_object("[1") is None
    assert recover_object("{") == {}
    assert recover_object('{"name": "Ada Lo') == {"name": "Ada Lo"}
    assert recover_object('{"a": "x", "n": 12') == {"a": "x"}  # a number may still grow
    assert recover_object('{"a": "x", "n": 12,') == {"a": "x", "n": 12}
    assert recover_object('{"list": ["x", "y') == {"list": ["x", "y"]}
    assert recover_object('{"o": {"flag": tr') == {"o": {}}
    assert recover_object('{"s": "a\\u00') == {"s": "a"}  # a cut escape is dropped
    assert recover_object('{"k') == {}


def test_every_prefix_of_a_real_object_recovers_to_an_object_and_the_whole_to_itself() -> None:
    whole = {"name": 'Zoë "Z" O\'Neil', "items": [1, 2.5, {"deep": [True, None]}], "note": "a, b: {c}"}
    text = json.dumps(whole)
    for end in range(1, len(text)):
        assert isinstance(recover_object(text[:end]), dict), text[:end]
    assert recover_object(text) == whole
