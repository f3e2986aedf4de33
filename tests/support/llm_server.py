"""A loopback LLM server for tests: real sockets, the real OpenAI/DeepSeek SSE wire format, scripted per test.

Usage in a test::

    with ScriptedLLMServer() as llm:
        llm.enqueue(text_reply("Hello", reasoning="Thinking"))
        ... point a provider at llm.url (``http://127.0.0.1:PORT/v1``) ...
        assert llm.requests[0].json["model"] == "m"

Each POST to ``/v1/chat/completions`` takes the next scripted ``Reply``. A reply is a status, headers and a
list of steps: raw bytes (written and flushed at once), ``Pause(seconds)`` (scripted silence, for stall
tests) or ``Gate`` (wait until the test opens it). When the steps run out the connection is closed. With
no reply left the server answers 500 so that a test fails loudly instead of hanging.

Run it by hand with a JSON script (see ``tests/support/scripts/``)::

    python -m tests.support.llm_server tests/support/scripts/time_tool.json
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Pause:
    """Write nothing for ``seconds`` (scripted silence, not synchronisation)."""

    seconds: float


@dataclass
class Gate:
    """Block the response here until the test calls ``open()``."""

    event: threading.Event = field(default_factory=threading.Event)

    def open(self) -> None:
        self.event.set()


Step = bytes | Pause | Gate


@dataclass
class Reply:
    status: int = 200
    steps: Sequence[Step] = ()
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/event-stream"


@dataclass(frozen=True)
class Write:
    """One step the server wrote and flushed: when (``time.monotonic()``), for which request, what."""

    at: float
    request_index: int
    data: bytes


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


# ---- wire helpers -------------------------------------------------------------------------------------


def sse(data: Any) -> bytes:
    """One SSE frame carrying ``data`` (JSON-encoded unless already a string)."""
    text = data if isinstance(data, str) else json.dumps(data)
    return f"data: {text}\n\n".encode()


DONE = sse("[DONE]")
KEEPALIVE = b": keep-alive\n\n"


def chunk(
    *,
    content: str | None = None,
    reasoning: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str | None = None,
    usage: dict[str, int] | None = None,
    model: str = "test-model",
) -> bytes:
    """One OpenAI-compatible ``chat.completion.chunk`` frame."""
    delta: dict[str, Any] = {}
    if content is not None:
        delta["content"] = content
    if reasoning is not None:
        delta["reasoning_content"] = reasoning
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    body: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }
    if usage is not None:
        body["usage"] = usage
    return sse(body)


def usage_frame(prompt: int = 10, completion: int = 5, hit: int = 0, miss: int = 0) -> bytes:
    """A usage-only frame (no choices), as sent with ``stream_options.include_usage``."""
    usage = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_cache_hit_tokens": hit,
        "prompt_cache_miss_tokens": miss,
    }
    return sse({"id": "chatcmpl-test", "object": "chat.completion.chunk", "choices": [], "usage": usage})


def split(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def text_reply(content: str, *, reasoning: str = "", usage: bool = True, piece: int = 4) -> Reply:
    """A streamed answer: reasoning deltas, then content deltas, ``stop``, a usage frame and ``[DONE]``."""
    steps: list[Step] = [chunk(reasoning=p) for p in split(reasoning, piece)] if reasoning else []
    steps += [chunk(content=p) for p in split(content, piece)]
    steps.append(chunk(finish_reason="stop"))
    if usage:
        steps.append(usage_frame())
    steps.append(DONE)
    return Reply(steps=steps)


def tool_call_reply(
    calls: Iterable[tuple[str, str, dict[str, Any]]],
    *,
    reasoning: str = "",
    content: str = "",
    usage: bool = True,
    hold_open: bool = False,
) -> Reply:
    """A response that asks for tools: ``(id, name, arguments)`` each, arguments streamed in two pieces.

    As OpenAI and DeepSeek send it with ``stream_options.include_usage``: ``finish_reason: tool_calls``, then a
    usage-only frame (unless ``usage`` is false), then ``[DONE]`` and the connection closes. With ``hold_open``
    the server sends no ``[DONE]`` and holds the connection open for 30 s after the usage frame instead, as a
    server that never closes does.
    """
    steps: list[Step] = [chunk(reasoning=p) for p in split(reasoning)] if reasoning else []
    if content:
        steps.append(chunk(content=content))
    for index, (call_id, name, args) in enumerate(calls):
        raw = json.dumps(args)
        half = len(raw) // 2
        steps.append(
            chunk(
                tool_calls=[
                    {
                        "index": index,
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": raw[:half]},
                    }
                ]
            )
        )
        steps.append(chunk(tool_calls=[{"index": index, "function": {"arguments": raw[half:]}}]))
    steps.append(chunk(finish_reason="tool_calls"))
    if usage:
        steps.append(usage_frame())
    steps.append(Pause(30.0) if hold_open else DONE)
    return Reply(steps=steps)


def error_reply(status: int, body: dict[str, Any] | str, headers: dict[str, str] | None = None) -> Reply:
    raw = body if isinstance(body, str) else json.dumps(body)
    return Reply(status=status, steps=[raw.encode()], headers=headers or {}, content_type="application/json")


# ---- the server ---------------------------------------------------------------------------------------


class ScriptedLLMServer:
    """A threaded loopback HTTP server answering chat completions from a queue of ``Reply``s."""

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        on_write: Callable[[Write], None] | None = None,
        models: Sequence[dict[str, Any]] = ({"id": "test-model"},),
    ) -> None:
        """``models``: what ``GET /v1/models`` lists (e.g. with ``context_length``, as OpenRouter states it)."""
        self.models = list(models)
        self.gets: list[str] = []
        """The paths of every GET (model lists), in order; ``requests`` holds the POSTs."""
        self._replies: deque[Reply] = deque(replies)
        self.requests: list[RecordedRequest] = []
        self.writes: list[Write] = []
        """Every scripted byte step written to a client, with its ``time.monotonic()`` send time."""
        self.on_write = on_write
        self._lock = threading.Lock()
        self._closing = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                with outer._lock:
                    outer.gets.append(self.path)
                if self.path.rstrip("/").endswith("/models"):
                    self._send_simple(200, {"object": "list", "data": outer.models})
                else:
                    self._send_simple(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with outer._lock:
                    outer.requests.append(
                        RecordedRequest("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                    reply = outer._replies.popleft() if outer._replies else None
                    index = len(outer.requests) - 1
                if reply is None:
                    self._send_simple(500, {"error": {"message": "ScriptedLLMServer: no reply scripted"}})
                    return
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.close_connection = True
                try:
                    for step in reply.steps:
                        if isinstance(step, Pause):
                            if outer._closing.wait(step.seconds):
                                return
                        elif isinstance(step, Gate):
                            while not step.event.wait(0.05):
                                if outer._closing.is_set():
                                    return
                        else:
                            self.wfile.write(step)
                            self.wfile.flush()
                            outer._wrote(Write(time.monotonic(), index, step))
                except (BrokenPipeError, ConnectionResetError):
                    return

            def _send_simple(self, status: int, payload: dict[str, Any]) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="llm-server", daemon=True)

    def _wrote(self, write: Write) -> None:
        with self._lock:
            self.writes.append(write)
        if self.on_write is not None:
            self.on_write(write)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    def start(self) -> ScriptedLLMServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---- JSON scripts for manual runs ----------------------------------------------------------------------


def replies_from_script(script: list[dict[str, Any]]) -> list[Reply]:
    """Build replies from a JSON script: ``{"text": ..., "reasoning": ...}`` or ``{"tool_calls": [...]}``."""
    out: list[Reply] = []
    for item in script:
        if "tool_calls" in item:
            calls = [(c["id"], c["name"], c.get("arguments", {})) for c in item["tool_calls"]]
            out.append(tool_call_reply(calls, reasoning=item.get("reasoning", "")))
        elif "status" in item:
            out.append(error_reply(item["status"], item.get("body", {"error": {"message": "scripted"}})))
        else:
            out.append(text_reply(item.get("text", ""), reasoning=item.get("reasoning", "")))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve a scripted chat-completions SSE stream on loopback.")
    parser.add_argument("script", type=Path, help="JSON list of replies")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    replies = replies_from_script(json.loads(args.script.read_text()))
    with ScriptedLLMServer(replies, port=args.port) as server:
        print(f"serving {len(replies)} scripted replies at {server.url}", flush=True)
        try:
            while server.pending:
                time.sleep(0.2)
            time.sleep(1.0)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
