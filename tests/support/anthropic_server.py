"""Anthropic Messages SSE replies for the loopback ``ScriptedLLMServer`` (it answers any POST from its queue).

Each frame is ``event: <type>\\ndata: <json>\\n\\n``, as the Messages API streams them::

    llm.enqueue(anthropic_text_reply("Hello", thinking="Hmm", signature="sig-1"))
    llm.enqueue(anthropic_tool_use_reply([("toolu_1", "get_time", {"tz": "UTC"})]))
    llm.enqueue(anthropic_error_reply(529, "overloaded_error", "Overloaded"))
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from tests.support.llm_server import Pause, Reply, Step, split

PING = b'event: ping\ndata: {"type": "ping"}\n\n'


def event(data: dict[str, Any]) -> bytes:
    """One Anthropic SSE frame; the ``event:`` name is the payload's ``type``."""
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n".encode()


def message_start(input_tokens: int = 10, cache_read: int = 0, cache_creation: int = 0) -> bytes:
    usage = {
        "input_tokens": input_tokens,
        "cache_read_input_tokens": cache_read,
        "cache_creation_input_tokens": cache_creation,
        "output_tokens": 1,
    }
    message: dict[str, Any] = {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return event({"type": "message_start", "message": message})


def block_start(index: int, block: dict[str, Any]) -> bytes:
    return event({"type": "content_block_start", "index": index, "content_block": block})


def block_delta(index: int, delta: dict[str, Any]) -> bytes:
    return event({"type": "content_block_delta", "index": index, "delta": delta})


def block_stop(index: int) -> bytes:
    return event({"type": "content_block_stop", "index": index})


def message_delta(stop_reason: str, output_tokens: int = 5) -> bytes:
    return event(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        }
    )


MESSAGE_STOP = event({"type": "message_stop"})


def thinking_steps(index: int, thinking: str, signature: str, piece: int = 4) -> list[Step]:
    """A thinking block: its start, ``thinking_delta`` pieces, one ``signature_delta``, its stop."""
    steps: list[Step] = [block_start(index, {"type": "thinking", "thinking": "", "signature": ""})]
    steps += [block_delta(index, {"type": "thinking_delta", "thinking": p}) for p in split(thinking, piece)]
    steps.append(block_delta(index, {"type": "signature_delta", "signature": signature}))
    steps.append(block_stop(index))
    return steps


def text_steps(index: int, text: str, piece: int = 4) -> list[Step]:
    steps: list[Step] = [block_start(index, {"type": "text", "text": ""})]
    steps += [block_delta(index, {"type": "text_delta", "text": p}) for p in split(text, piece)]
    steps.append(block_stop(index))
    return steps


def tool_use_steps(index: int, call_id: str, name: str, arguments: dict[str, Any]) -> list[Step]:
    """A ``tool_use`` block whose input JSON arrives in two ``input_json_delta`` pieces."""
    raw = json.dumps(arguments)
    half = len(raw) // 2
    return [
        block_start(index, {"type": "tool_use", "id": call_id, "name": name, "input": {}}),
        block_delta(index, {"type": "input_json_delta", "partial_json": ""}),
        block_delta(index, {"type": "input_json_delta", "partial_json": raw[:half]}),
        block_delta(index, {"type": "input_json_delta", "partial_json": raw[half:]}),
        block_stop(index),
    ]


def anthropic_text_reply(
    text: str,
    thinking: str = "",
    signature: str = "sig",
    *,
    input_tokens: int = 10,
    output_tokens: int = 5,
    cache_read: int = 0,
    cache_creation: int = 0,
    piece: int = 4,
) -> Reply:
    """A streamed answer: ``message_start``, a ping, an optional thinking block, a text block, ``end_turn``."""
    steps: list[Step] = [message_start(input_tokens, cache_read, cache_creation), PING]
    index = 0
    if thinking:
        steps += thinking_steps(index, thinking, signature, piece)
        index += 1
    steps += text_steps(index, text, piece)
    steps += [message_delta("end_turn", output_tokens), MESSAGE_STOP]
    return Reply(steps=steps)


def anthropic_tool_use_reply(
    calls: Iterable[tuple[str, str, dict[str, Any]]],
    thinking: str = "",
    signature: str = "sig",
    *,
    text: str = "",
    hold_open: bool = True,
) -> Reply:
    """A response asking for tools: ``(id, name, input)`` each, ending with ``stop_reason: tool_use``.

    With ``hold_open`` the server keeps the connection open after ``message_stop``, to prove the client
    completes on ``message_stop`` alone.
    """
    steps: list[Step] = [message_start(), PING]
    index = 0
    if thinking:
        steps += thinking_steps(index, thinking, signature)
        index += 1
    if text:
        steps += text_steps(index, text)
        index += 1
    for call_id, name, arguments in calls:
        steps += tool_use_steps(index, call_id, name, arguments)
        index += 1
    steps += [message_delta("tool_use"), MESSAGE_STOP]
    if hold_open:
        steps.append(Pause(30.0))
    return Reply(steps=steps)


def anthropic_error_reply(status: int, type: str, message: str, headers: dict[str, str] | None = None) -> Reply:
    """A non-2xx JSON answer in the Anthropic error shape, e.g. ``529`` / ``overloaded_error``."""
    body = json.dumps({"type": "error", "error": {"type": type, "message": message}})
    return Reply(status=status, steps=[body.encode()], headers=headers or {}, content_type="application/json")


def anthropic_stream_error(type: str = "overloaded_error", message: str = "Overloaded") -> bytes:
    """An ``error`` event inside a 2xx stream."""
    return event({"type": "error", "error": {"type": type, "message": message}})
