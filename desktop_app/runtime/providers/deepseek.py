"""Whale's message repair and DeepSeek-only rules for the chat-completions provider (Whale §1.1).

* ``repair_messages`` — makes a conversation sendable (``toDeepSeekMessages`` /
  ``sanitizeDeepSeekMessagesForRequest``). It is applied in **every** dialect, because OpenAI and the other
  compatible servers reject the same broken shapes (a tool call without a result, a tool result without a
  call): a tool call left without a result gets a synthetic failed result, stray tool results are
  dropped, an assistant message with no text, no tool calls and no reasoning is dropped, and a tool call
  without an id gets ``switchboard_synthetic_call_<message index>_<call index>``.
* ``MessageDiagnostics`` — what the repair (and, in the DeepSeek dialect, the reasoning rules) changed;
  a 400 answer is suffixed with it (``DiagnosedHTTPError``) so that a rejected request can be explained.
* Prefix completion (DeepSeek beta): ``prefix_base_url`` picks the ``/beta`` endpoint, ``prefix_message``
  is the trailing assistant message, and ``join_prefix`` puts the prefix in front of the streamed answer.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

from desktop_app.runtime.errors import ProviderHTTPError
from desktop_app.runtime.messages import AssistantMessage, Message, ToolCallRequest, ToolMessage
from desktop_app.runtime.providers.base import ChatRequest, Completion, ContentChunk, ProviderEvent, RetryChunk

MISSING_TOOL_RESULT = (
    '{"success":false,"error":"missing tool result recovered before provider send",'
    '"code":"missing_tool_result_recovered"}'
)
"""The content of the synthetic result given to a tool call that has none (Whale's literal string)."""

SYNTHETIC_CALL_ID = "switchboard_synthetic_call_{message}_{call}"

DEEPSEEK_BASE_URL = "https://api.deepseek.com"
DEEPSEEK_BETA_URL = f"{DEEPSEEK_BASE_URL}/beta"


# ---- diagnostics --------------------------------------------------------------------------------------


@dataclass
class MessageDiagnostics:
    """Counts of what was changed in the messages before sending (Whale's ``deepSeekMessageDiagnostics``)."""

    stripped_reasoning: int = 0
    """DeepSeek: assistant messages without tool calls whose non-blank reasoning was not sent back."""
    preserved_tool_reasoning: int = 0
    """DeepSeek: assistant messages with tool calls whose non-blank reasoning was sent back."""
    synthetic_tool_results: int = 0
    dropped_stray_tools: int = 0
    repaired_missing_tool_call_ids: int = 0

    def any(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    def describe(self) -> str:
        """``message diagnostics: stripped_reasoning=0 preserved_tool_reasoning=1 …``."""
        return "message diagnostics: " + " ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self))

    def suffix(self) -> str:
        """What a 400 error gets appended: `` (message diagnostics: …)``, or ``""`` when nothing changed."""
        return f" ({self.describe()})" if self.any() else ""


class DiagnosedHTTPError(ProviderHTTPError):
    """A 400 answer to a request whose messages were repaired; the message ends with the diagnostics."""

    def __init__(self, error: ProviderHTTPError, diagnostics: MessageDiagnostics) -> None:
        self.diagnostics = diagnostics  # before super().__init__, which calls _describe
        super().__init__(error.status, error.body, error.headers)

    def _describe(self) -> str:
        return super()._describe() + self.diagnostics.suffix()


def with_diagnostics(error: ProviderHTTPError, diagnostics: MessageDiagnostics) -> ProviderHTTPError:
    """``error`` itself, or a ``DiagnosedHTTPError`` when it is a 400 and something was repaired."""
    if error.status != 400 or not diagnostics.any() or isinstance(error, DiagnosedHTTPError):
        return error
    return DiagnosedHTTPError(error, diagnostics)


# ---- repair -------------------------------------------------------------------------------------------


def _is_empty_assistant(message: AssistantMessage) -> bool:
    return not message.content.strip() and not message.tool_calls and not message.reasoning.strip()


class _Repairer:
    def __init__(self, diagnostics: MessageDiagnostics) -> None:
        self.out: list[Message] = []
        self.diag = diagnostics
        self._calls: list[str] = []  # ids of the open assistant message's calls, in call order
        self._results: dict[str, ToolMessage] = {}

    def open_calls(self, index: int, message: AssistantMessage) -> None:
        calls: list[ToolCallRequest] = []
        for call_index, call in enumerate(message.tool_calls):
            if not call.id.strip():
                call = call.model_copy(update={"id": SYNTHETIC_CALL_ID.format(message=index, call=call_index)})
                self.diag.repaired_missing_tool_call_ids += 1
            calls.append(call)
        self.out.append(message.model_copy(update={"tool_calls": tuple(calls)}))
        self._calls = [call.id for call in calls]

    def tool_result(self, message: ToolMessage) -> None:
        call_id = message.tool_call_id.strip()
        if not call_id:  # a result without an id answers the first unanswered call, as in Whale
            call_id = next((c for c in self._calls if c not in self._results), "")
            message = message.model_copy(update={"tool_call_id": call_id})
        if call_id not in self._calls or call_id in self._results:
            self.diag.dropped_stray_tools += 1
            return
        self._results[call_id] = message

    def flush(self) -> None:
        """Close the open tool calls: their results in call order, a synthetic failure for each missing one."""
        for call_id in self._calls:
            result = self._results.get(call_id)
            if result is None:
                result = ToolMessage(tool_call_id=call_id, content=MISSING_TOOL_RESULT, is_error=False)
                self.diag.synthetic_tool_results += 1
            self.out.append(result)
        self._calls = []
        self._results = {}


def repair_messages(
    messages: Sequence[Message], diagnostics: MessageDiagnostics | None = None
) -> tuple[list[Message], MessageDiagnostics]:
    """The messages in a shape every chat-completions server accepts, and what was changed.

    Each assistant message with tool calls is followed by exactly one result per call, in call order
    (results that arrived in another order are reordered; a missing one is synthesised; a result for no
    open call, or a second result for the same call, is dropped). A tool call with a blank id gets a
    synthetic one, and a result with a blank id answers the first unanswered call. Assistant messages with
    no text, no tool calls and no reasoning are dropped.
    """
    diag = diagnostics if diagnostics is not None else MessageDiagnostics()
    repairer = _Repairer(diag)
    for index, message in enumerate(messages):
        if isinstance(message, ToolMessage):
            repairer.tool_result(message)
            continue
        repairer.flush()
        if isinstance(message, AssistantMessage):
            if message.tool_calls:
                repairer.open_calls(index, message)
            elif not _is_empty_assistant(message):
                repairer.out.append(message)
        else:
            repairer.out.append(message)
    repairer.flush()
    return repairer.out, diag


def count_reasoning(messages: Sequence[Message], diagnostics: MessageDiagnostics) -> None:
    """DeepSeek: count the reasoning that is stripped (plain answers) and sent back (tool-call turns)."""
    for message in messages:
        if isinstance(message, AssistantMessage) and message.reasoning.strip():
            if message.tool_calls:
                diagnostics.preserved_tool_reasoning += 1
            else:
                diagnostics.stripped_reasoning += 1


# ---- prefix completion --------------------------------------------------------------------------------


class PrefixCompletionProvider(Protocol):
    """A provider that can continue a given answer prefix (``OpenAIProvider.stream_with_prefix``).

    Where the endpoint has no prefix completion it streams a normal answer (without tools) instead, so a
    caller that needs the prefix in the answer must check the Completion's content.
    """

    def stream_with_prefix(
        self, request: ChatRequest, prefix: str, stop: Sequence[str] | None = None
    ) -> AsyncIterator[ProviderEvent]: ...


def prefix_base_url(base_url: str) -> str | None:
    """The base URL of DeepSeek's prefix-completion (beta) endpoint for ``base_url``, or ``None``.

    ``https://api.deepseek.com`` and ``https://api.deepseek.com/v1`` map to ``https://api.deepseek.com/beta``;
    a base already ending in ``/beta`` is used as it is; any other base has no prefix completion.
    """
    base = base_url.strip().rstrip("/")
    if base.lower() in {DEEPSEEK_BASE_URL, f"{DEEPSEEK_BASE_URL}/v1"}:
        return DEEPSEEK_BETA_URL
    if base.endswith("/beta"):
        return base
    return None


def prefix_message(prefix: str) -> dict[str, Any]:
    """The trailing assistant message that asks the model to continue ``prefix``."""
    return {"role": "assistant", "content": prefix, "prefix": True}


def join_prefix_content(prefix: str, content: str) -> str:
    """The whole answer: ``prefix + content``, unless the model already repeated the prefix."""
    return content if content.startswith(prefix) else prefix + content


async def join_prefix(events: AsyncGenerator[ProviderEvent, None], prefix: str) -> AsyncGenerator[ProviderEvent, None]:
    """Prefix-completion events: the prefix is the first content delta, and the Completion includes it.

    The prefix is emitted on its own before the first content delta unless that delta already starts with
    it. A stream reset (a retry that voids the partial output) emits it again on the next attempt.
    """
    sent = False
    async with contextlib.aclosing(events) as source:
        async for event in source:
            if isinstance(event, ContentChunk) and not sent:
                sent = True
                if not event.text.startswith(prefix):
                    yield ContentChunk(text=prefix)
                yield event
            elif isinstance(event, Completion):
                content = join_prefix_content(prefix, event.content)
                if not sent and content.strip():
                    sent = True
                    yield ContentChunk(text=prefix)
                yield event.model_copy(update={"content": content})
            else:
                if isinstance(event, RetryChunk) and event.info.stream_reset:
                    sent = False
                yield event
