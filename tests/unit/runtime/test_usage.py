"""Conversation usage (#16): list prices from the presets, the estimated cost, and the summary the runtime
puts on every ``RunFinished`` (totals over all runs, also those a reopened conversation had before)."""

from __future__ import annotations

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.providers.base import Completion, ContentChunk, UsageChunk
from desktop_app.runtime.providers.presets import Price, model_price
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.usage import cache_hit_rate, describe, estimate_cost, sum_usage_rows, summarize
from tests.support.fakes import FakeHost, FakeProvider


def answer(text: str, prompt: int, completion: int, hit: int = 0) -> list[object]:
    usage = ev.TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        cache_hit_tokens=hit,
        cache_miss_tokens=prompt - hit,
    )
    return [ContentChunk(text=text), UsageChunk(usage=usage), Completion(content=text)]


def test_prices_come_from_the_presets_and_unknown_models_have_none() -> None:
    assert model_price("https://api.deepseek.com", "deepseek-chat") == Price(0.28, 0.028, 0.42)
    assert model_price("https://api.anthropic.com/", "claude-sonnet-4-5-20250929") == Price(3.0, 0.30, 15.0)
    assert model_price("https://api.openai.com/v1", "gpt-4o-mini") == Price(0.15, 0.075, 0.60)
    assert model_price("https://api.openai.com/v1", "gpt-4o-mini-2024-07-18") == Price(0.15, 0.075, 0.60)
    assert model_price("https://api.openai.com/v1", "o9-unknown") is None
    assert model_price("http://127.0.0.1:11434/v1", "deepseek-chat") is None  # a local server: no price


def test_cost_charges_hits_at_the_cached_price() -> None:
    usage = ev.TokenUsage(prompt_tokens=1_000_000, completion_tokens=500_000, cache_hit_tokens=800_000,
                          cache_miss_tokens=200_000)  # fmt: skip
    assert estimate_cost(usage, Price(1.0, 0.1, 2.0)) == pytest.approx(0.2 + 0.08 + 1.0)
    assert cache_hit_rate(usage) == pytest.approx(80.0)
    assert cache_hit_rate(ev.TokenUsage(prompt_tokens=5)) is None
    priced = summarize(usage, "https://api.deepseek.com", "deepseek-chat")
    assert priced.cost_usd == pytest.approx(0.2 * 0.28 + 0.8 * 0.028 + 0.5 * 0.42)
    assert describe(priced) == "1.0M prompt · 500.0k completion tokens · cache hit 80 % · ≈ $0.2884"
    unpriced = summarize(usage, "http://127.0.0.1:9/v1", "local")
    assert unpriced.cost_usd is None and describe(unpriced).endswith("cache hit 80 %")


def test_stored_rows_sum_into_one_usage() -> None:
    rows = [{"run_id": "r", "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "cache_hit_tokens": 4,
             "cache_miss_tokens": 6, "created_at": 1.0}] * 3  # fmt: skip
    total = sum_usage_rows(rows)
    assert (total.prompt_tokens, total.total_tokens, total.cache_hit_tokens) == (30, 45, 12)


@pytest.mark.asyncio
async def test_run_finished_carries_the_conversation_totals_and_cost() -> None:
    provider = FakeProvider([answer("one", 1000, 100), answer("two", 2000, 200, hit=1000)])
    settings = Settings(provider=ProviderSettings(base_url="https://api.deepseek.com", model="deepseek-chat"))
    runtime = Runtime(settings=settings, host=FakeHost(), provider_factory=lambda _s, _k: provider,
                      api_key_override="k")  # fmt: skip
    finished: list[ev.RunFinished] = []
    runtime.subscribe(lambda e: finished.append(e) if isinstance(e, ev.RunFinished) else None)
    cid = runtime.new_conversation()
    runtime.set_conversation_usage(cid, ev.TokenUsage(prompt_tokens=500, completion_tokens=50, total_tokens=550))
    await runtime.run(cid, "first")
    await runtime.run(cid, "second")
    await runtime.aclose()
    first, second = (f.conversation_usage for f in finished)
    assert first is not None and second is not None
    assert (first.tokens.prompt_tokens, first.tokens.completion_tokens) == (1500, 150)  # the earlier 500 + 1000
    assert (second.tokens.prompt_tokens, second.tokens.total_tokens) == (3500, 3850)
    assert second.cache_hit_rate == pytest.approx(100 * 1000 / 3000)  # only the reported cache counts
    expected = (2500 * 0.28 + 1000 * 0.028 + 350 * 0.42) / 1_000_000
    assert second.cost_usd == pytest.approx(expected, rel=1e-3) and second.model == "deepseek-chat"
