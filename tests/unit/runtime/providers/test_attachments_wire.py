"""Attachments on the wire: OpenAI ``image_url`` data-URL parts, Anthropic base64 image blocks, inlined text."""

from __future__ import annotations

import contextlib
from typing import Any

import httpx
import pytest

from desktop_app.runtime.messages import AssistantMessage, Attachment, UserMessage
from desktop_app.runtime.providers import anthropic, openai, openai_request
from desktop_app.runtime.providers.base import ChatRequest, Completion

PNG = Attachment(name="shot.png", mime_type="image/png", kind="image", size=4, data="iVBORw==")
WEBP = Attachment(name="pic.webp", mime_type="image/webp", kind="image", size=4, data="UklGRg==")
NOTES = Attachment(name="notes.md", mime_type="text/markdown", kind="text", size=6, data="# Plan")
CUT = Attachment(
    name="log.txt",
    mime_type="text/plain",
    kind="text",
    size=900_000,
    data="head",
    truncated=True,
    note="[… truncated: log.txt is 878.9 KB; only the first 200.0 KB are included (setting max_attachment_text_bytes)]",
)
CONTEXT = "<context>\nos: Linux\n</context>"


def test_openai_user_message_with_images_is_a_parts_array() -> None:
    message = UserMessage(content="What is this?", attachments=(PNG, NOTES, WEBP), context=CONTEXT)
    [wire] = openai_request.to_wire_messages([message])
    assert wire["role"] == "user"
    assert wire["content"][:2] == [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
        {"type": "image_url", "image_url": {"url": "data:image/webp;base64,UklGRg=="}},
    ]
    text = wire["content"][2]
    assert text["type"] == "text"
    assert text["text"] == (
        f'<file name="notes.md" type="text/markdown" size="6">\n# Plan\n</file>\n\nWhat is this?\n\n{CONTEXT}'
    )


def test_openai_user_message_without_images_stays_a_string() -> None:
    [wire] = openai_request.to_wire_messages([UserMessage(content="Read it", attachments=(CUT,))])
    assert isinstance(wire["content"], str)
    assert wire["content"].startswith('<file name="log.txt" type="text/plain" size="900000">\nhead\n[… truncated')
    assert "max_attachment_text_bytes" in wire["content"]
    assert openai_request.to_wire_messages([UserMessage(content="hi")]) == [{"role": "user", "content": "hi"}]


def test_openai_body_in_every_dialect_carries_the_image() -> None:
    request = ChatRequest(model="m", messages=(UserMessage(content="see", attachments=(PNG,)),))
    for dialect in ("openai", "deepseek"):
        body = openai_request.build_body(request, dialect=dialect)  # type: ignore[arg-type]
        assert body["messages"][0]["content"][0]["image_url"]["url"].startswith("data:image/png;base64,")


def test_anthropic_user_message_has_image_blocks_then_text() -> None:
    message = UserMessage(content="What is this?", attachments=(PNG, NOTES), context=CONTEXT)
    system, wire = anthropic.to_wire_messages([message, AssistantMessage(content="A chart.")])
    assert system == ""
    text = f'<file name="notes.md" type="text/markdown" size="6">\n# Plan\n</file>\n\nWhat is this?\n\n{CONTEXT}'
    assert wire[0]["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="}},
        {"type": "text", "text": text},
    ]
    assert wire[1] == {"role": "assistant", "content": [{"type": "text", "text": "A chart."}]}


def test_anthropic_image_only_message_has_no_empty_text_block() -> None:
    _system, wire = anthropic.to_wire_messages([UserMessage(content="", attachments=(PNG,))])
    assert [block["type"] for block in wire[0]["content"]] == ["image"]


def test_image_description_replaces_the_image_as_text() -> None:
    described = Attachment(
        name="shot.png", mime_type="text/plain", kind="image_description", data="A red square.", note="vision-1"
    )
    [wire] = openai_request.to_wire_messages([UserMessage(content="Colour?", attachments=(described,))])
    assert wire["content"] == (
        '<image_description of="shot.png" by="vision-1">\nA red square.\n</image_description>\n\nColour?'
    )


# ---- DeepSeek prefix completion falls back when the latest user message has attachments (Whale §1.1) ----


class _Capture:
    def __init__(self) -> None:
        self.urls: list[str] = []
        self.bodies: list[Any] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        import json

        self.urls.append(str(request.url))
        self.bodies.append(json.loads(request.content))
        stream = (
            b'data: {"choices":[{"delta":{"content":"fine"},"finish_reason":null}]}\n\n'
            b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
        )
        return httpx.Response(200, content=stream, headers={"content-type": "text/event-stream"})


@pytest.mark.asyncio
async def test_prefix_completion_falls_back_when_the_latest_user_message_has_attachments() -> None:
    capture = _Capture()
    client = httpx.AsyncClient(transport=httpx.MockTransport(capture))
    provider = openai.OpenAIProvider(
        base_url="https://api.deepseek.com", api_key="k", dialect="deepseek", client=client
    )
    request = ChatRequest(model="deepseek-chat", messages=(UserMessage(content="judge", attachments=(NOTES,)),))
    async with contextlib.aclosing(provider.stream_with_prefix(request, "{")) as events:
        items = [item async for item in events]
    await client.aclose()
    assert capture.urls == ["https://api.deepseek.com/chat/completions"]  # not /beta
    assert all(not m.get("prefix") for m in capture.bodies[0]["messages"])
    final = items[-1]
    assert isinstance(final, Completion)
    assert final.content == "fine"
