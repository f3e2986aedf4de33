"""The context budget (#16): the documented token estimate, windows from the presets, and the breakdown the
runtime gives for a conversation's next request."""

from __future__ import annotations

import pytest

from desktop_app.runtime.compaction.budget import (
    IMAGE_TOKENS,
    MESSAGE_OVERHEAD,
    budget,
    context_window,
    estimate_message_tokens,
    estimate_text_tokens,
)
from desktop_app.runtime.messages import (
    AssistantMessage,
    Attachment,
    SystemMessage,
    ToolCallRequest,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from desktop_app.runtime.providers.base import Completion, ContentChunk
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeHost, FakeProvider


def test_text_estimate_is_four_ascii_characters_or_one_other_character_a_token() -> None:
    assert estimate_text_tokens("") == 0
    assert estimate_text_tokens("abcd") == 1 and estimate_text_tokens("abcde") == 2
    assert estimate_text_tokens("你好世界") == 4  # CJK: a token each
    assert estimate_text_tokens("héllo") == 2  # 4 ASCII characters (1) + é (1)


def test_messages_count_overhead_calls_and_images() -> None:
    call = ToolCallRequest(id="c", name="abcd", arguments='{"a":1}')
    assert estimate_message_tokens(AssistantMessage(content="abcd", tool_calls=(call,))) == (
        MESSAGE_OVERHEAD + 1 + 1 + 2 + MESSAGE_OVERHEAD
    )
    image = Attachment(name="x.png", mime_type="image/png", kind="image", data="QUJD")
    assert estimate_message_tokens(UserMessage(content="abcd", attachments=(image,))) == (
        MESSAGE_OVERHEAD + 1 + IMAGE_TOKENS
    )


def test_windows_come_from_the_presets() -> None:
    assert context_window("https://api.deepseek.com", "deepseek-chat") == 128_000
    assert context_window("https://api.anthropic.com", "claude-sonnet-4-5-20250929") == 200_000
    assert context_window("http://127.0.0.1:1234/v1", "qwen") is None


def test_budget_breaks_the_request_down() -> None:
    text_file = Attachment(name="a.txt", mime_type="text/plain", kind="text", data="x" * 400, size=400)
    messages = [
        SystemMessage(content="s" * 40),
        UserMessage(content="q" * 8, attachments=(text_file,)),
        AssistantMessage(content="a" * 8),
        ToolMessage(tool_call_id="c", content="t" * 4),
    ]
    tools = [ToolSpec(name="t", description="d" * 100)]
    result = budget(messages, tools, 1000)
    assert result.system == MESSAGE_OVERHEAD + 10
    assert 100 <= result.attachments <= 115  # the file's 400 characters and its header
    assert result.history == 3 * MESSAGE_OVERHEAD + 2 + 2 + 1
    assert result.tools >= 25 and result.total == result.system + result.tools + result.history + result.attachments
    assert result.fraction == pytest.approx(result.total / 1000)
    assert budget(messages, tools, None).fraction is None


@pytest.mark.asyncio
async def test_runtime_budget_grows_with_the_conversation() -> None:
    provider = FakeProvider([[ContentChunk(text="b" * 400), Completion(content="b" * 400)]])
    settings = Settings(
        provider=ProviderSettings(base_url="https://api.deepseek.com", model="deepseek-chat"), system_prompt="Be brief."
    )
    host = FakeHost(handlers={"clock": lambda _a: "noon"})
    runtime = Runtime(settings=settings, host=host, provider_factory=lambda _s, _k: provider, api_key_override="k")
    cid = runtime.new_conversation()
    before = runtime.context_budget(cid)
    assert before.window == 128_000 and before.history == 0 and before.system > 0 and before.tools > 0
    await runtime.run(cid, "hello")
    after = runtime.context_budget(cid)
    await runtime.aclose()
    assert after.history >= 100 + before.history and after.system == before.system and after.tools == before.tools
