"""A DeepSeek tool loop with thinking on, through the real ``Runtime`` and provider over loopback sockets.

DeepSeek rejects a thinking-mode tool loop unless every assistant message that carries tool calls is sent
back with its own ``reasoning_content``; plain answers must not carry any. Three tool rounds (each with
its own reasoning) and a final answer follow a first plain turn, and every request is checked.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeHost
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

ROUNDS: list[tuple[str, str, dict[str, Any], str]] = [
    ("call_r1", "mcp__fake__add", {"a": 1, "b": 2}, "I need the sum first."),
    ("call_r2", "mcp__fake__mul", {"a": 3, "b": 4}, "Now the product of the sum and four."),
    ("call_r3", "mcp__fake__echo", {"text": "12"}, "Echo the result to be sure."),
]
REASONING_BY_CALL = {call_id: reasoning for call_id, _, _, reasoning in ROUNDS}


def assistant_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] == "assistant"]


@pytest.mark.asyncio
async def test_three_tool_rounds_with_thinking_send_back_each_rounds_reasoning(
    llm_server: ScriptedLLMServer,
) -> None:
    host = FakeHost(
        {
            "add": lambda a: str(a["a"] + a["b"]),
            "mul": lambda a: str(a["a"] * a["b"]),
            "echo": lambda a: str(a["text"]),
        }
    )
    llm_server.enqueue(text_reply("Hello! Ask me to compute.", reasoning="A greeting needs no tools."))
    for call_id, name, args, reasoning in ROUNDS:
        llm_server.enqueue(tool_call_reply([(call_id, name, args)], reasoning=reasoning))
    llm_server.enqueue(text_reply("The answer is 12.", reasoning="All three tools agree."))

    settings = Settings(
        provider=ProviderSettings(base_url=llm_server.url, model="deepseek-chat", dialect="deepseek", thinking=True)
    )
    runtime = Runtime(settings=settings, host=host, policy=ApprovalPolicy("always"), api_key_override="sk-ds")
    try:
        conversation = runtime.new_conversation()
        async with asyncio.timeout(30):
            first = await runtime.run(conversation, "hi")
            second = await runtime.run(conversation, "compute (1+2)*4 with the tools")
    finally:
        await runtime.aclose()

    assert (first.status, first.content) == ("finished", "Hello! Ask me to compute.")
    assert (second.status, second.content) == ("finished", "The answer is 12.")
    assert [(tool, args) for _, tool, args in host.log] == [(n.split("__")[-1], a) for _, n, a, _ in ROUNDS]
    assert len(llm_server.requests) == 5
    assert llm_server.pending == 0

    for sent in llm_server.requests:
        body = sent.json
        assert sent.path == "/v1/chat/completions"
        assert body["model"] == "deepseek-chat"
        assert body["thinking"] == {"type": "enabled"}
        assert "reasoning_effort" not in body  # none configured
        for message in assistant_messages(body):
            if message.get("tool_calls"):
                [call] = message["tool_calls"]
                assert message["reasoning_content"] == REASONING_BY_CALL[call["id"]]
                assert message["content"] is None
            else:
                assert "reasoning_content" not in message

    final = llm_server.requests[-1].json["messages"]
    assert [m["role"] for m in final] == ["user", "assistant", "user", *["assistant", "tool"] * 3]
    assert final[1] == {"role": "assistant", "content": "Hello! Ask me to compute."}
    calls = [m["tool_calls"][0] for m in final if m.get("tool_calls")]
    assert [(c["id"], c["function"]["name"]) for c in calls] == [(i, n) for i, n, _, _ in ROUNDS]
    results = [(m["tool_call_id"], m["content"]) for m in final if m["role"] == "tool"]
    assert results == [("call_r1", "3"), ("call_r2", "12"), ("call_r3", "12")]
    # Each round's request carries exactly the tool-call turns made so far.
    for round_number in range(1, 5):
        body = llm_server.requests[round_number].json
        made = [m for m in assistant_messages(body) if m.get("tool_calls")]
        assert len(made) == round_number - 1
