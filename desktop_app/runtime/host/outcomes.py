"""What a tool call returns to the run loop: :class:`CallOutcome`, built from an MCP result or an error.

Also the output limit: :func:`truncate_outcome` cuts a result whose text is longer than the
``tool_output_limit`` setting and says so in a marker the model (and the user) can read.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from desktop_app.runtime.hooks.notices import HookNotice
from desktop_app.runtime.model_defaults import empty_list
from desktop_app.runtime.sdk_types import mtypes

DEFAULT_MAX_OUTPUT_CHARS = 100_000
OUTPUT_LIMIT_SETTING = "tool_output_limit"


class CallOutcome(BaseModel):
    """The result of one tool call as the run loop sees it. ``text`` is what the model reads."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    text: str
    is_error: bool = False
    structured: dict[str, Any] | None = None
    content: list[dict[str, Any]] = Field(default_factory=empty_list)
    hooks: list[HookNotice] = Field(default_factory=empty_list)
    """What hooks changed, blocked or failed on this call (see :mod:`desktop_app.runtime.hooks`)."""
    meta: dict[str, Any] | None = None
    """The result's ``_meta`` (e.g. ``ai.nanobot.hooks/mutations``)."""


def error_outcome(message: str) -> CallOutcome:
    """An error outcome carrying ``message`` as its only text block."""
    return CallOutcome(text=message, is_error=True, content=[{"type": "text", "text": message}])


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data) * 3 // 4


def _summarize_block(block: mtypes.ContentBlock) -> str:
    """Text for one content block: text as is, everything else as a one-line summary."""
    if isinstance(block, mtypes.TextContent):
        return block.text
    if isinstance(block, mtypes.ImageContent | mtypes.AudioContent):
        return f"[{block.type} {block.mime_type}, {_decoded_size(block.data)} bytes]"
    if isinstance(block, mtypes.ResourceLink):
        return f"[resource link {block.uri}" + (f" ({block.name})" if block.name else "") + "]"
    resource = block.resource  # the last kind: an embedded resource
    if isinstance(resource, mtypes.TextResourceContents):
        return f"[resource {resource.uri}]\n{resource.text}"
    mime = f" {resource.mime_type}" if resource.mime_type else ""
    return f"[resource {resource.uri}{mime}, {_decoded_size(resource.blob)} bytes]"


def outcome_from_result(result: mtypes.CallToolResult) -> CallOutcome:
    """Convert an MCP ``CallToolResult``, applying nanobot's single-JSON-text -> structured rule."""
    texts = [_summarize_block(block) for block in result.content]
    text = "\n".join(part for part in texts if part)
    if result.is_error and not text:
        text = "MCP tool returned an error"
    structured = result.structured_content
    text_blocks = [block for block in result.content if isinstance(block, mtypes.TextContent)]
    if structured is None and len(text_blocks) == 1:
        with contextlib.suppress(ValueError):
            parsed = json.loads(text_blocks[0].text)
            if isinstance(parsed, dict):
                structured = parsed
    return CallOutcome(
        text=text,
        is_error=bool(result.is_error),
        structured=structured,
        content=[block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content],
        meta=result.meta,
    )


def truncation_marker(omitted: int) -> str:
    """The note appended to cut output; it names the setting that controls the limit."""
    return f'…[truncated {omitted:,} characters: raise the "{OUTPUT_LIMIT_SETTING}" setting to see more]'


def truncate_outcome(outcome: CallOutcome, max_chars: int | None) -> CallOutcome:
    """``outcome`` with its text cut to ``max_chars`` (plus a marker); unchanged when it fits.

    When the text is cut, the content blocks become that one text block, and structured content
    whose JSON alone is over the limit is dropped: the model must not receive the full output
    through another field.
    """
    if max_chars is None or len(outcome.text) <= max_chars:
        return outcome
    text = outcome.text[:max_chars] + "\n" + truncation_marker(len(outcome.text) - max_chars)
    structured = outcome.structured
    if structured is not None and len(json.dumps(structured, ensure_ascii=False, default=str)) > max_chars:
        structured = None
    return CallOutcome(
        text=text,
        is_error=outcome.is_error,
        structured=structured,
        content=[{"type": "text", "text": text}],
        hooks=outcome.hooks,
        meta=outcome.meta,
    )


__all__ = [
    "DEFAULT_MAX_OUTPUT_CHARS",
    "OUTPUT_LIMIT_SETTING",
    "CallOutcome",
    "error_outcome",
    "outcome_from_result",
    "truncate_outcome",
    "truncation_marker",
]
