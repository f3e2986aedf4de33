"""Regenerate the last answer, Retry a failed or stopped run, delete a message pair, edit and resend, switch
versions: changes to a stored conversation, made in the store and then shown from it.

Each action deletes a range of stored messages (``Store.delete_message_range``; regenerate and edit keep it
as a version first, ``store.branches``), reloads the conversation from the store into the runtime and the
view (``replay.reopen``), and for regenerate and retry asks the model again (``continue_run`` with no
pending calls runs one more model turn on the history, which now ends with the user's message). Because the
view is rebuilt from the store, what it shows is what a restart shows. Turns are counted from the end
(``from_end`` 0 is the last user message), so a windowed transcript ("Show earlier") and the store agree.
"""

from __future__ import annotations

from typing import Any, Protocol, cast


class MainWindow(Protocol):
    """What the turn actions use of the main window (``ui.window.main_window``; the chat never imports it)."""

    controller: Any
    runtime: Any
    store: Any
    view: Any
    composer: Any
    tasks: Any
    turns: Any  # ``TurnControl``: ``continue_run``

    def set_status(self, text: str) -> None: ...

    def switch_version(self, from_end: int, version: int, *, answer: bool = False) -> bool: ...


def _user_positions(window: MainWindow, conversation_id: str) -> list[int]:
    assert window.store is not None
    positions: list[int] = window.store.user_positions(conversation_id)
    return positions


def _usable(window: MainWindow) -> str | None:
    """The current stored conversation, when nothing runs in it; else None (and a status line says why)."""
    controller = window.controller
    if controller is None or window.store is None or window.runtime is None:
        return None
    if controller.busy:
        window.set_status("Stop the run first")
        return None
    cid: str | None = controller.conversation_id
    if cid is None or window.store.get_conversation(cid) is None:
        window.set_status("This conversation is not stored yet")
        return None
    return cid


def _reload(window: MainWindow, conversation_id: str) -> list[str]:
    from desktop_app.ui.chat.replay import reopen

    assert window.store is not None and window.controller is not None
    window.controller.conversation_id = conversation_id
    pending = reopen(window.store, cast("Any", window.runtime), window.view, conversation_id)
    show_versions(window)
    return pending


def delete_range(window: MainWindow, from_end: int, *, keep_prompt: bool) -> str | None:
    """Delete the answer to (``keep_prompt``) or the whole of the ``from_end``-th last user turn."""
    cid = _usable(window)
    if cid is None:
        return None
    positions = _user_positions(window, cid)
    if not 0 <= from_end < len(positions):
        window.set_status("That message is no longer stored")
        return None
    index = len(positions) - 1 - from_end
    start = positions[index] + (1 if keep_prompt else 0)
    end = positions[index + 1] if index + 1 < len(positions) else None
    assert window.store is not None
    window.store.delete_message_range(cid, start, end)
    _reload(window, cid)
    return cid


def regenerate(window: MainWindow) -> bool:
    """Ask the model again for the last answer; the old one is kept as a version (``‹ 1/2 ›`` under the
    answer, stored: it survives a restart), with its own usage footer."""
    from desktop_app.runtime.store import branches

    cid = _usable(window)
    anchor = _anchor(window, cid, 0) if cid is not None else None
    if cid is None or anchor is None:
        return False
    assert window.store is not None
    if window.store.messages(cid, from_position=anchor + 1):  # an answer to keep (else there is nothing)
        branches.start_version(window.store, cid, anchor + 1)
    _reload(window, cid)
    window.set_status("Regenerating…")
    window.turns.continue_run()
    return True


def retry(window: MainWindow) -> bool:
    """Run the last prompt again after a failed or stopped run (its partial output goes)."""
    cid = delete_range(window, 0, keep_prompt=True)
    if cid is None:
        return False
    window.set_status("Retrying…")
    window.turns.continue_run()
    return True


def delete_turn(window: MainWindow, from_end: int) -> bool:
    """Delete a user message and its answer."""
    cid = delete_range(window, from_end, keep_prompt=False)
    if cid is not None:
        window.set_status("Deleted the message and its answer")
    return cid is not None


def _anchor(window: MainWindow, conversation_id: str, from_end: int) -> int | None:
    positions = _user_positions(window, conversation_id)
    if not 0 <= from_end < len(positions):
        window.set_status("That message is no longer stored")
        return None
    return positions[len(positions) - 1 - from_end]


def edit_and_resend(window: MainWindow, from_end: int, text: str) -> bool:
    """Send ``text`` in place of the ``from_end``-th last user message, with the files and context chips it
    went with (``sent_with``; the time taken anew); what followed it is kept as a version (``‹ 1/2 ›``),
    stored, so it survives a restart."""
    from desktop_app.runtime.store import branches
    from desktop_app.ui.chat import sent_with
    from desktop_app.ui.chat.blocks import UserMessageBlock

    cid = _usable(window)
    anchor = _anchor(window, cid, from_end) if cid is not None else None
    if cid is None or anchor is None:
        return False
    assert window.store is not None and window.controller is not None
    sent = sent_with.of_position(window.store, cid, anchor)
    attachments, context = sent_with.resend_arguments(sent, window.composer.default_context)
    shown = [b for b in window.view.blocks() if isinstance(b, UserMessageBlock)]
    images = shown[len(shown) - 1 - from_end].images if from_end < len(shown) else []
    branches.start_version(window.store, cid, anchor)
    _reload(window, cid)
    window.view.add_user_message(text).show_sent(attachments, context)
    if images:
        names = ", ".join(images)
        window.view.add_notice(f"{names} not sent again: images are not kept with a message. Attach it to a new one.")
    window.tasks.start(window.controller.send(text, attachments=attachments, context=context), name="send-edited")
    return True


def switch_version(window: MainWindow, from_end: int, version: int, *, answer: bool = False) -> bool:
    """Show another version of the conversation from the ``from_end``-th last user message on (``answer``:
    of its answer, from the message after it on: a regenerated answer)."""
    from desktop_app.runtime.store import branches

    cid = _usable(window)
    anchor = _anchor(window, cid, from_end) if cid is not None else None
    if cid is None or anchor is None:
        return False
    assert window.store is not None
    if not branches.switch(window.store, cid, anchor + 1 if answer else anchor, version):
        return False
    _reload(window, cid)
    return True


def show_versions(window: MainWindow) -> None:
    """Put ``‹ n/m ›`` on the user messages that have versions: by the stored position a replayed message
    knows, or, for one sent live, by its place from the end (a windowed transcript is the store's tail); and
    under the answers that have versions (regenerated; not the one a run is still writing)."""
    from desktop_app.runtime.store import branches
    from desktop_app.ui.chat import answer_versions
    from desktop_app.ui.chat.blocks import UserMessageBlock

    controller, store = window.controller, window.store
    if controller is None or store is None or controller.conversation_id is None:
        return
    cid = controller.conversation_id
    if store.get_conversation(cid) is None:
        return
    known = branches.versions(store, cid)
    positions = _user_positions(window, cid)
    blocks = [b for b in window.view.blocks() if isinstance(b, UserMessageBlock)]
    prompts: list[tuple[UserMessageBlock, int]] = []
    for block, position in zip(reversed(blocks), reversed(positions), strict=False):
        if block.position is not None:  # replayed: its own; sent live: the stored one as far from the end
            position = block.position
        live, count = known.get(position, (1, 1))
        block.set_versions(live or count, count)
        prompts.insert(0, (block, position))

    def pick(prompt: UserMessageBlock, version: int) -> None:
        shown = [b for b in window.view.blocks() if isinstance(b, UserMessageBlock)]
        if prompt in shown:
            window.switch_version(len(shown) - 1 - shown.index(prompt), version, answer=True)

    answer_versions.place(window.view, prompts, known, positions, pick, skip_last=controller.busy)


__all__ = [
    "delete_range",
    "delete_turn",
    "edit_and_resend",
    "regenerate",
    "retry",
    "show_versions",
    "switch_version",
]
