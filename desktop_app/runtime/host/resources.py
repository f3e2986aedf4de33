"""Resources and prompts of one server, as the composer uses them: readable text plus attachment summaries.

:func:`read_resource` turns ``resources/read`` contents into a :class:`ResourceRead` (text as is, binary
blobs as one-line summaries) that :meth:`ResourceRead.as_prompt_text` turns into prompt text;
:func:`get_prompt` turns ``prompts/get`` into a :class:`PromptText` whose messages are plain text (so the
composer can offer prompts as ``/`` commands).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable
from typing import Literal, TypeVar

import mcp_types as mtypes
from mcp import Client
from pydantic import BaseModel, ConfigDict, Field

from desktop_app.runtime.host.outcomes import CallOutcome, outcome_from_result
from desktop_app.runtime.model_defaults import empty_list

_MAX_PAGES = 100
_Page = TypeVar("_Page")


class ResourceBlob(BaseModel):
    """A binary part of a resource: not inlined, only described."""

    model_config = ConfigDict(frozen=True)

    uri: str
    mime_type: str | None = None
    size: int = 0

    def summary(self) -> str:
        mime = f" {self.mime_type}" if self.mime_type else ""
        return f"[binary resource {self.uri}{mime}, {self.size} bytes]"


class ResourceText(BaseModel):
    model_config = ConfigDict(frozen=True)

    uri: str
    mime_type: str | None = None
    text: str


class ResourceRead(BaseModel):
    """What ``resources/read`` returned: text parts, and blobs as attachment summaries."""

    model_config = ConfigDict(frozen=True)

    server: str
    uri: str
    texts: list[ResourceText] = Field(default_factory=empty_list)
    blobs: list[ResourceBlob] = Field(default_factory=empty_list)

    @property
    def text(self) -> str:
        """All readable content: the text parts, then one summary line per blob."""
        parts = [part.text for part in self.texts] + [blob.summary() for blob in self.blobs]
        return "\n".join(part for part in parts if part)

    def as_prompt_text(self) -> str:
        """The resource wrapped for a prompt, naming its server and URI (for attaching it to a message)."""
        mime = next((p.mime_type for p in self.texts if p.mime_type), None)
        kind = f' type="{_attr(mime)}"' if mime else ""
        return f'<resource server="{_attr(self.server)}" uri="{_attr(self.uri)}"{kind}>\n{self.text}\n</resource>'


class PromptMessageText(BaseModel):
    model_config = ConfigDict(frozen=True)

    role: Literal["user", "assistant"]
    text: str


class PromptText(BaseModel):
    """A prompt rendered by its server, every message as text."""

    model_config = ConfigDict(frozen=True)

    server: str
    name: str
    description: str | None = None
    messages: list[PromptMessageText] = Field(default_factory=empty_list)

    def as_text(self) -> str:
        """The messages joined, for the composer (user turns as they are)."""
        return "\n\n".join(message.text for message in self.messages if message.text)


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data) * 3 // 4


async def _all_pages(fetch: Callable[[str | None], Awaitable[tuple[list[_Page], str | None]]]) -> list[_Page]:
    items: list[_Page] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page, cursor = await fetch(cursor)
        items.extend(page)
        if not cursor:
            break
    return items


async def list_resources(client: Client) -> list[mtypes.Resource]:
    async def fetch(cursor: str | None) -> tuple[list[mtypes.Resource], str | None]:
        result = await client.list_resources(cursor=cursor)
        return list(result.resources), result.next_cursor

    return await _all_pages(fetch)


async def list_resource_templates(client: Client) -> list[mtypes.ResourceTemplate]:
    async def fetch(cursor: str | None) -> tuple[list[mtypes.ResourceTemplate], str | None]:
        result = await client.list_resource_templates(cursor=cursor)
        return list(result.resource_templates), result.next_cursor

    return await _all_pages(fetch)


async def list_prompts(client: Client) -> list[mtypes.Prompt]:
    async def fetch(cursor: str | None) -> tuple[list[mtypes.Prompt], str | None]:
        result = await client.list_prompts(cursor=cursor)
        return list(result.prompts), result.next_cursor

    return await _all_pages(fetch)


def resource_read(server: str, uri: str, result: mtypes.ReadResourceResult) -> ResourceRead:
    texts: list[ResourceText] = []
    blobs: list[ResourceBlob] = []
    for part in result.contents:
        if isinstance(part, mtypes.TextResourceContents):
            texts.append(ResourceText(uri=part.uri, mime_type=part.mime_type, text=part.text))
        else:
            blobs.append(ResourceBlob(uri=part.uri, mime_type=part.mime_type, size=_decoded_size(part.blob)))
    return ResourceRead(server=server, uri=uri, texts=texts, blobs=blobs)


async def read_resource(client: Client, server: str, uri: str) -> ResourceRead:
    return resource_read(server, uri, await client.read_resource(uri))


def prompt_text(server: str, name: str, result: mtypes.GetPromptResult) -> PromptText:
    messages: list[PromptMessageText] = []
    for message in result.messages:
        # One content block reads exactly like a tool result's block: reuse that summariser.
        outcome: CallOutcome = outcome_from_result(mtypes.CallToolResult(content=[message.content]))
        messages.append(PromptMessageText(role=message.role, text=outcome.text))
    return PromptText(server=server, name=name, description=result.description, messages=messages)


async def get_prompt(client: Client, server: str, name: str, arguments: dict[str, str] | None) -> PromptText:
    return prompt_text(server, name, await client.get_prompt(name, arguments or None))


__all__ = [
    "PromptMessageText",
    "PromptText",
    "ResourceBlob",
    "ResourceRead",
    "ResourceText",
    "get_prompt",
    "list_prompts",
    "list_resource_templates",
    "list_resources",
    "prompt_text",
    "read_resource",
    "resource_read",
]
