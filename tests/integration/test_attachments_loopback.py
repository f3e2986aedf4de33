"""Attachments through the real ``Runtime`` and real providers against the loopback SSE server.

Images to a vision model (OpenAI parts, Anthropic blocks), text files inlined, the vision refusal before any
request, and the vision side channel (the vision model's description, then the main answer).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.context import text_item
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import Dialect, ProviderSettings, Settings
from tests.support.anthropic_server import anthropic_text_reply
from tests.support.fakes import FakeHost
from tests.support.llm_server import ScriptedLLMServer, text_reply
from tests.unit.runtime.test_attachments import tiny_png


def make_runtime(
    server: ScriptedLLMServer, model: str, dialect: Dialect = "openai", vision: ProviderSettings | None = None
) -> Runtime:
    provider = ProviderSettings(base_url=server.url, model=model, dialect=dialect)
    return Runtime(
        settings=Settings(provider=provider, vision_provider=vision),
        host=FakeHost(),
        policy=ApprovalPolicy("never"),
        api_key_override="sk-loop",
    )


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    image = tmp_path / "chart.png"
    image.write_bytes(tiny_png())
    notes = tmp_path / "notes.txt"
    notes.write_text("quarterly numbers: 1, 2, 3\n", encoding="utf-8")
    return image, notes


async def run(runtime: Runtime, prompt: str, *attachments: Path) -> tuple[str, list[ev.Event]]:
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    try:
        async with asyncio.timeout(30):
            outcome = await runtime.run(
                runtime.new_conversation(), prompt, attachments=attachments, context=[text_item("ctx")]
            )
    finally:
        await runtime.aclose()
    return outcome.status, events


@pytest.mark.asyncio
async def test_openai_vision_model_gets_the_image_part_and_the_inlined_file(
    llm_server: ScriptedLLMServer, files: tuple[Path, Path]
) -> None:
    image, notes = files
    llm_server.enqueue(text_reply("A red square and three numbers."))
    status, events = await run(make_runtime(llm_server, "gpt-4o-mini"), "Explain", image, notes)
    assert status == "finished"
    [request] = llm_server.requests
    content = request.json["messages"][-1]["content"]
    assert content[0]["type"] == "image_url"
    assert content[0]["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")
    assert content[1]["type"] == "text"
    assert '<file name="notes.txt" type="text/plain"' in content[1]["text"]
    assert "quarterly numbers: 1, 2, 3" in content[1]["text"]
    assert "attached files: chart.png (" in content[1]["text"]
    # The prompt, then the per-run context at the end of the message (cache-stable prompt, issue 16).
    text = content[1]["text"]
    assert "</file>\n\nExplain\n\n<context>\n" in text and text.endswith("</context>")
    started = events[0]
    assert isinstance(started, ev.RunStarted) and started.attachments == ["chart.png", "notes.txt"]


@pytest.mark.asyncio
async def test_anthropic_model_gets_a_base64_image_block(
    llm_server: ScriptedLLMServer, files: tuple[Path, Path]
) -> None:
    llm_server.enqueue(anthropic_text_reply("Red."))
    status, _events = await run(make_runtime(llm_server, "claude-test", "anthropic"), "Colour?", files[0])
    assert status == "finished"
    block = llm_server.requests[0].json["messages"][0]["content"][0]
    assert block["type"] == "image"
    assert block["source"]["type"] == "base64"
    assert block["source"]["media_type"] == "image/png"


@pytest.mark.asyncio
async def test_text_only_model_without_vision_provider_is_refused_before_any_request(
    llm_server: ScriptedLLMServer, files: tuple[Path, Path]
) -> None:
    runtime = make_runtime(llm_server, "deepseek-chat", "deepseek")
    conversation_messages = runtime.conversation  # kept to inspect after the run
    status, events = await run(runtime, "What is this?", files[0])
    assert status == "failed"
    assert llm_server.requests == []
    error = events[-1]
    assert isinstance(error, ev.Error)
    assert error.code == "vision_unavailable"
    assert error.message == (
        "deepseek-chat cannot read images; configure a vision-capable provider in Settings → Provider, "
        "or remove the image."
    )
    assert [e.kind for e in events] == ["run_started", "error"]
    assert conversation_messages(events[0].conversation_id).messages == []


@pytest.mark.asyncio
async def test_vision_provider_describes_the_image_for_a_text_only_model(
    llm_server: ScriptedLLMServer, files: tuple[Path, Path]
) -> None:
    image, notes = files
    vision = ProviderSettings(base_url=llm_server.url, model="vision-model", dialect="openai")
    llm_server.enqueue(text_reply("chart.png: a 2x2 red square, no text."), text_reply("It is red."))
    runtime = make_runtime(llm_server, "deepseek-chat", "deepseek", vision=vision)
    status, events = await run(runtime, "What colour is the chart?", image, notes)
    assert status == "finished"
    first, second = (request.json for request in llm_server.requests)
    assert first["model"] == "vision-model"
    assert first["messages"][0]["role"] == "system"
    parts = first["messages"][-1]["content"]
    assert parts[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert "What colour is the chart?" in parts[1]["text"]
    assert second["model"] == "deepseek-chat"
    main = json.dumps(second)
    assert "image_url" not in main and "base64" not in main
    text = second["messages"][-1]["content"]
    assert isinstance(text, str)
    assert '<image_description of="chart.png" by="vision-model">\nchart.png: a 2x2 red square, no text.' in text
    assert "quarterly numbers" in text
    described = [e for e in events if isinstance(e, ev.ImagesDescribed)]
    assert [(d.model, d.images, d.text) for d in described] == [
        ("vision-model", ["chart.png"], "chart.png: a 2x2 red square, no text.")
    ]
    assert [e.kind for e in events if e.kind != "content_delta" and e.kind != "usage"] == [
        "run_started",
        "images_described",
        "prompt_sent",  # the description, kept with the prompt for a reopen
        "run_finished",
    ]
