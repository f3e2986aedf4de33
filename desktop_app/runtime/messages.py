"""The conversation model: messages the run loop keeps and providers translate to their wire format."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolCallRequest(_Model):
    """One tool call the model asked for: its id, its model-facing name and the raw JSON arguments."""

    id: str
    name: str
    arguments: str = "{}"

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a JSON object; raises ``ValueError`` when they are not one."""
        text = self.arguments.strip() or "{}"
        value = json.loads(text)
        if not isinstance(value, dict):
            raise ValueError(f"tool arguments must be a JSON object, got {type(value).__name__}")
        return value


class ToolSpec(_Model):
    """A tool as the model sees it: a model-facing name, a description and a JSON-schema for its input."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class SystemMessage(_Model):
    role: Literal["system"] = "system"
    content: str


class UserMessage(_Model):
    role: Literal["user"] = "user"
    content: str


class AssistantMessage(_Model):
    role: Literal["assistant"] = "assistant"
    content: str = ""
    reasoning: str = ""
    reasoning_signature: str = ""
    """Anthropic: the signature of the thinking block, replayed with ``reasoning`` (empty elsewhere)."""
    tool_calls: tuple[ToolCallRequest, ...] = ()


class ToolMessage(_Model):
    role: Literal["tool"] = "tool"
    tool_call_id: str
    content: str
    is_error: bool = False


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolMessage,
    Field(discriminator="role"),
]
