"""`switchboard ask --dialect anthropic` end to end: the real console script, Messages SSE, a real MCP server.

The Anthropic twin of ``test_cli_ask.test_tool_call_reaches_the_real_time_server``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.anthropic_server import anthropic_text_reply, anthropic_tool_use_reply
from tests.support.cli_ask import ask_time_round
from tests.support.llm_server import ScriptedLLMServer


@pytest.mark.integration
@pytest.mark.parametrize("with_v1", [True, False])
def test_anthropic_tool_call_reaches_the_real_time_server(
    llm_server: ScriptedLLMServer, tmp_path: Path, time_config: Path, with_v1: bool
) -> None:
    llm_server.enqueue(
        anthropic_tool_use_reply(
            [("toolu_1", "mcp__time__get_current_time", {"timezone": "UTC"})], thinking="Need time.", signature="s1"
        ),
        anthropic_text_reply("It is the time the server said.", thinking="Got it."),
    )
    base_url = llm_server.url if with_v1 else llm_server.url.removesuffix("/v1")
    ask_time_round(
        "--base-url",
        base_url,
        "--dialect",
        "anthropic",
        "--model",
        "claude-test",
        mcp_config=time_config,
        home=tmp_path / "h",
        model_call_id="toolu_1",
        answer="It is the time the server said.",
    )

    # Both requests went to /v1/messages; the model saw the tool and got the tool_use + tool_result back.
    assert [r.path for r in llm_server.requests] == ["/v1/messages", "/v1/messages"]
    first, second = (r.json for r in llm_server.requests)
    assert first["model"] == "claude-test" and first["stream"] is True
    assert "mcp__time__get_current_time" in [t["name"] for t in first["tools"]]
    assistant, tool_results = second["messages"][-2], second["messages"][-1]
    assert assistant["role"] == "assistant"
    tool_use = next(b for b in assistant["content"] if b["type"] == "tool_use")
    assert tool_use == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "mcp__time__get_current_time",
        "input": {"timezone": "UTC"},
    }
    assert tool_results["role"] == "user"
    [block] = tool_results["content"]
    assert block["type"] == "tool_result" and block["tool_use_id"] == "toolu_1" and block["is_error"] is False
    assert json.loads(block["content"])["timezone"] == "UTC"
