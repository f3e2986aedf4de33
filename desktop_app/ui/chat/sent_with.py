"""What a user message went with besides its text: its context chips and attached files.

The store keeps them with the prompt (``PromptSent``: an empty text part whose payload holds
``prompt_context = {"context", "attachments", "items"}``). ``SentWith`` reads them back, for the caption under
a user message ("with notes.txt (1.2 KB) · Tue 01 Dec 23:10 · Debian 12") and for sending an edited message
again with the same chips and files (``resend_arguments``): the date-and-time chip is taken anew (a message
carries the time at which it was asked); the other chips and the text attachments are the stored ones.
Images are not stored with a prompt (#16: they can be megabytes), so an edited message goes without them (the
window says so when it knows the original had one).

Nothing here imports pydantic or the runtime at module level (the window imports it before the first paint).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop_app.runtime.context import ContextItem
    from desktop_app.runtime.messages import Attachment
    from desktop_app.runtime.store import Store, StoredMessage


@dataclass
class SentWith:
    """A stored prompt's chips (``items``: kind, label, text) and text attachments (``Attachment`` fields)."""

    items: list[dict[str, str]] = field(default_factory=list)
    attachments: list[dict[str, Any]] = field(default_factory=list)
    recorded: bool = False
    """Whether the store had a record of them (a prompt with no chips and no files has none)."""

    @property
    def labels(self) -> list[str]:
        """The caption's parts: files first, then the chips."""
        files = [str(a.get("name", "file")) for a in self.attachments if a.get("kind") != "image_description"]
        return files + [str(i.get("label", "")) for i in self.items if i.get("label")]


def of_message(message: StoredMessage) -> SentWith:
    """What the stored user ``message`` went with."""
    for part in message.parts:
        sent = (part.payload or {}).get("prompt_context") if part.kind == "text" else None
        if isinstance(sent, dict):
            items = [dict(i) for i in sent.get("items") or [] if isinstance(i, dict)]
            files = [dict(a) for a in sent.get("attachments") or [] if isinstance(a, dict)]
            return SentWith(items, files, recorded=True)
    return SentWith()


def of_position(store: Store, conversation_id: str, position: int) -> SentWith:
    """What the stored user message at ``position`` went with."""
    for message in store.messages(conversation_id, from_position=position):
        if message.position == position:
            return of_message(message)
    return SentWith()


def resend_arguments(
    sent: SentWith, default_context: Callable[[], Sequence[ContextItem]] | None
) -> tuple[list[Attachment], list[ContextItem] | None]:
    """``(attachments, context)`` for ``Runtime.run`` to send an edited message with what the original had.

    A message stored before chips were recorded (or with none) gets what a new message gets
    (``default_context``)."""
    from desktop_app.runtime.context import ContextItem
    from desktop_app.runtime.messages import Attachment

    attachments = []
    for fields in sent.attachments:
        try:
            attachments.append(Attachment.model_validate(fields))
        except ValueError:
            continue  # a damaged record: the message still goes, without that file
    if not sent.items:
        return attachments, list(default_context()) if default_context is not None else None
    fresh = [i for i in (default_context() if default_context is not None else ()) if i.kind == "datetime"]
    context: list[ContextItem] = []
    for item in sent.items:
        kind, label, text = item.get("kind", "note"), item.get("label", ""), item.get("text", "")
        if kind == "datetime" and fresh:
            context.append(fresh[0])  # the time at sending, not at the first sending
        else:
            context.append(ContextItem(kind, label, text))  # type: ignore[arg-type]
    return attachments, context


def caption(labels: Iterable[str]) -> str:
    """'with notes.txt · Tue 01 Dec 23:10 UTC · Debian 12' (empty when there is nothing)."""
    text = " · ".join(label for label in labels if label)
    return f"with {text}" if text else ""


__all__ = ["SentWith", "caption", "of_message", "of_position", "resend_arguments"]
