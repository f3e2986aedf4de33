"""The ``‹ n/m ›`` switcher of a regenerated answer: a row under the turn's answer.

Regenerate keeps the old answer as a version in the store (``store.branches``, anchored at the position after
its prompt, the same versions an edited message has); :func:`place` puts one :class:`AnswerVersions` on the
line of each answer that has versions, left of the turn's last answer part's actions (its usage footer, which
belongs to the version shown, stays under it). A turn with no answer part (a failed regenerate) gets it as a
row at its end, so the old answer can still be brought back. The switchers are placed again whenever the
window shows versions (``turn_actions.show_versions``): after a reload from the store, when a run ends, after
"Show earlier".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QWidget

from desktop_app.ui.chat.blocks import AnswerBlock, UserMessageBlock
from desktop_app.ui.chat.usage import UsageFooter
from desktop_app.ui.chat.version_switch import add_version_switch


class AnswerVersions(QWidget):
    """``‹ version/count ›`` under an answer that was regenerated.

    Signals:
        version_requested(int): show this version of the answer.
    """

    version_requested = Signal(int)

    def __init__(self, prompt: UserMessageBlock, version: int, count: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("answerVersions")
        self.setAccessibleName("Versions of this answer")
        self.setToolTip("Regenerated answers: ‹ and › switch between them")
        self.prompt = prompt  # the user message this answers (its place from the end says which turn)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        self.previous_version_button, self.version_label, self.next_version_button = add_version_switch(
            row, lambda step: self.version_requested.emit(self.version + step), of=" of the answer"
        )
        self.version, self.count = version, count
        self.version_label.setText(f"{version}/{count}")
        self.previous_version_button.setEnabled(version > 1)
        self.next_version_button.setEnabled(version < count)


def _turns(blocks: Sequence[QWidget]) -> dict[UserMessageBlock, list[QWidget]]:
    """Each user message with the blocks of its turn (up to the next user message)."""
    turns: dict[UserMessageBlock, list[QWidget]] = {}
    current: list[QWidget] | None = None
    for block in blocks:
        if isinstance(block, UserMessageBlock):
            current = turns.setdefault(block, [])
        elif current is not None and not isinstance(block, AnswerVersions):  # a row of a turn with no answer
            current.append(block)
    return turns


def place(
    view: QWidget,
    prompts: Sequence[tuple[UserMessageBlock, int]],
    versions: dict[int, tuple[int, int]],
    user_positions: Sequence[int],
    on_request: Callable[[UserMessageBlock, int], None],
    *,
    skip_last: bool = False,
) -> list[AnswerVersions]:
    """Put a switcher under the answer of each prompt (a user message and its stored position) whose answer
    has versions, replacing the ones shown before. ``versions``: ``{anchor: (live, count)}`` (an answer's
    anchor is its prompt's position + 1); ``user_positions``: every stored user message's; ``skip_last``:
    the last turn's answer is still being written (its row comes when the run ends); ``on_request(prompt,
    version)`` is called when the user picks a version."""
    for old in view.findChildren(AnswerVersions):
        old.hide()
        old.setParent(None)
        old.deleteLater()
    blocks = view.blocks()  # type: ignore[attr-defined]
    turns = _turns(blocks)
    positions = set(user_positions)
    last = prompts[-1][0] if prompts else None
    rows: list[AnswerVersions] = []
    for prompt, position in prompts:
        live, count = versions.get(position + 1, (1, 1))
        if count < 2 or position + 1 in positions or (skip_last and prompt is last):
            continue  # one version, or the anchor is the next prompt's (its own switcher says it)
        shown = [b for b in turns.get(prompt, []) if not b.isHidden()]
        answers = [b for b in shown if isinstance(b, AnswerBlock)]
        rest = [b for b in shown if not isinstance(b, UsageFooter)]
        after = answers[-1] if answers else rest[-1] if rest else prompt
        row = AnswerVersions(prompt, live or count, count)
        row.version_requested.connect(lambda version, prompt=prompt: on_request(prompt, version))
        if isinstance(after, AnswerBlock):  # on the answer's own line, left of its actions
            after.footer_row.insertWidget(0, row)
            row.show()  # now, as the view shows what it inserts (not on a later turn of the event loop)
        else:
            view.insert_after(after, row)  # type: ignore[attr-defined]
        rows.append(row)
    return rows


__all__ = ["AnswerVersions", "place"]
