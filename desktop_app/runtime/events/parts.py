"""The parts of events that providers, conversations and the tool deferral hold outside any event: a response's
token counts, a conversation's usage so far, why a request is tried again, and why a tool was promoted. Made
with the runtime (a new conversation counts its tokens), while the events themselves wait for their first use
(see the package)."""

from typing import Literal

from pydantic import BaseModel, ConfigDict


class TokenUsage(BaseModel):
    """Token counts of one model response. DeepSeek also reports prompt-cache hits and misses."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cache_hit_tokens: int = 0
    cache_miss_tokens: int = 0
    cache_creation_tokens: int = 0
    """Anthropic: of the missed prompt tokens, those written to the cache (billed at a premium)."""


class ConversationUsage(BaseModel):
    """A conversation's usage so far (every run, also those of earlier processes), on ``RunFinished``."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    tokens: TokenUsage
    cache_hit_rate: float | None = None
    """Percent of prompt tokens served from the provider's cache (``None``: no cache counts reported)."""
    cost_usd: float | None = None
    """Estimated from the presets' list prices; ``None`` when the model's price is not known."""
    model: str = ""


class RetryInfo(BaseModel):
    """Why and when a request or a stream will be tried again."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    attempt: int
    max_attempts: int
    delay_s: float
    stage: Literal["request", "stream"]
    reason: str
    status_code: int | None = None
    stream_reset: bool = False
    provider: str | None = None
    """Who failed, as a person names it ("DeepSeek"); ``None`` when not known."""
    message: str | None = None
    """The provider's own message from the error body (one line, redacted)."""
    details: str | None = None
    """The error body as it came (its head, redacted), for a details view."""


PromotionReason = Literal["search", "direct_call", "restored"]
"""Why a deferred tool joined a conversation's tool list (``ToolsPromoted``)."""


__all__ = ["ConversationUsage", "PromotionReason", "RetryInfo", "TokenUsage"]
