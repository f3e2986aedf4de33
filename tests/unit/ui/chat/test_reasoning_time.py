"""Reasoning is labelled by how long the model thought ("Thought for 4 s"), also after a reopen: the recorder
keeps each reasoning part's time (``duration_s``) and the replay shows it (the live label: test_streaming)."""

from __future__ import annotations

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.store import Recorder, Store
from desktop_app.ui.chat.blocks import ReasoningBlock, thought_for
from desktop_app.ui.chat.replay import read_transcript
from desktop_app.ui.chat.view import ChatView

IDS = {"conversation_id": "conv-1", "run_id": "run-1"}


class FakeClock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store(tmp_path):
    db = Store.open(tmp_path / "switchboard.db")
    yield db
    db.close()


def test_a_reopened_conversation_says_how_long_the_model_thought(qtbot, store) -> None:
    clock = FakeClock()
    recorder = Recorder(store, clock=clock, use_timer=False)
    recorder(ev.RunStarted(**IDS, model="m", prompt="Why?"))
    recorder(ev.ReasoningDelta(**IDS, text="Let me think "))
    clock.now += 65.0
    recorder(ev.ReasoningDelta(**IDS, text="about it."))
    clock.now += 2.0
    recorder(ev.ContentDelta(**IDS, text="Because."))
    recorder(ev.RunFinished(**IDS, content="Because."))

    view = ChatView()
    qtbot.addWidget(view)
    view.load_transcript(read_transcript(store, "conv-1"))
    [reasoning] = [b for b in view.blocks() if isinstance(b, ReasoningBlock)]
    assert reasoning.toggle.text() == "Thought for 1 min 7 s"
    assert reasoning.text == "Let me think about it." and not reasoning.expanded and not reasoning.live


def test_a_part_stored_without_its_time_is_not_given_one(qtbot) -> None:
    view = ChatView()
    qtbot.addWidget(view)
    block = view.add_reasoning("old thoughts")
    assert block.toggle.text() == "Reasoning" and block.seconds is None


def test_the_time_reads_as_a_person_says_it() -> None:
    assert [thought_for(s) for s in (0.2, 4.4, 59.6, 60, 125)] == ["1 s", "4 s", "1 min 0 s", "1 min 0 s", "2 min 5 s"]
