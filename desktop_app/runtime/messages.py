"""The conversation model: messages the run loop keeps and providers translate to their wire format."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class ToolCallRequest(_Model):
    """One tool call the model asked for: its id, its model-facing name and the raw JSON arguments.

    ``id`` is the runtime's own identity of the call once the run loop has taken it in (``<run id>-<n>``:
    the run and the call's position in it), unique whatever the model sent; ``wire_id`` keeps the id the
    model gave, which is what goes back on the wire (``conversation.wire_messages``). Providers build
    requests with the model's id in ``id`` and ``wire_id`` empty.
    """

    id: str
    name: str
    arguments: str = "{}"
    wire_id: str = ""
    """The model's own id for this call (empty: ``id`` is the model's id, e.g. an older stored call)."""

    @property
    def model_id(self) -> str:
        """The id the model knows this call by."""
        return self.wire_id or self.id

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a JSON object; raises ``ValueError`` when they are not one."""
        text = self.arguments.strip() or "{}"
        value = json.loads(text)
        if not isinstance(value, dict):
            raise ValueError(f"tool arguments must be a JSON object, got {type(value).__name__}")
        return value


class ToolSpec(_Model):
    """A tool as the model sees it: a model-facing name, a description and a JSON-schema for its input."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class SystemMessage(_Model):
    role: Literal["system"] = "system"
    content: str


AttachmentKind = Literal["image", "text", "image_description"]


class Attachment(_Model):
    """A file the user attached to a message, already loaded (see ``desktop_app.runtime.attachments``).

    ``image``: ``data`` is the base64 of the bytes, sent as an image part or block. ``text``: ``data`` is the
    decoded text (``truncated`` when it was cut at the size cap), inlined into the prompt under a header
    naming the file. ``image_description``: a vision model's description of the images named in ``name``,
    inlined like a text file when the chosen model cannot read images.
    """

    name: str
    mime_type: str
    kind: AttachmentKind
    size: int = 0
    """The file's size in bytes (of the original file, also when truncated)."""
    data: str = ""
    truncated: bool = False
    note: str = ""
    """What the model should know about the attachment (e.g. the truncation marker, who described it)."""


class UserMessage(_Model):
    role: Literal["user"] = "user"
    content: str
    attachments: tuple[Attachment, ...] = ()
    context: str = ""
    """The run's ``<context>`` block (date, time, OS, selections), sent at the end of the text; empty: none."""

    @property
    def images(self) -> tuple[Attachment, ...]:
        return tuple(a for a in self.attachments if a.kind == "image")

    def text_with_attachments(self) -> str:
        """The text a provider sends: each text attachment under a header, the prompt, then the context block.

        The per-run context goes last (#16): everything before it is the user's own text, and the whole message
        is repeated byte for byte by every later request. Images are not in it: each dialect sends them as its
        own parts (``images``).
        """
        parts: list[str] = []
        for item in self.attachments:
            if item.kind == "text":
                header = f'<file name="{_attr(item.name)}" type="{_attr(item.mime_type)}" size="{item.size}">'
                body = item.data + (f"\n{item.note}" if item.note else "")
                parts.append(f"{header}\n{body}\n</file>")
            elif item.kind == "image_description":
                by = f' by="{_attr(item.note)}"' if item.note else ""
                parts.append(f'<image_description of="{_attr(item.name)}"{by}>\n{item.data}\n</image_description>')
        if self.content:
            parts.append(self.content)
        if self.context:
            parts.append(self.context)
        return "\n\n".join(parts)


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


class AssistantMessage(_Model):
    role: Literal["assistant"] = "assistant"
    content: str = ""
    reasoning: str = ""
    reasoning_signature: str = ""
    """Anthropic: the signature of the thinking block, replayed with ``reasoning`` (empty elsewhere)."""
    tool_calls: tuple[ToolCallRequest, ...] = ()


class ToolMessage(_Model):
    role: Literal["tool"] = "tool"
    tool_call_id: str
    content: str
    is_error: bool = False
    replay_limit: int = 0
    """Requests send ``content`` as a head/tail digest of this many characters (0: verbatim); decided once,
    when the result was recorded, so every later request repeats it (see ``tool_digest``)."""


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolMessage,
    Field(discriminator="role"),
]
