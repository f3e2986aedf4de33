"""A conversation's token usage, its prompt-cache hit rate and its estimated cost.

The runtime adds up every ``Usage`` event of a conversation (``UsageTotals``) and puts the summary
(``ConversationUsage``) on each ``RunFinished``: the window's conversation footer and ``switchboard ask``'s
final event show it. The cost comes from the list prices in the provider presets (``model_price``): fresh
prompt tokens at the input price, cache hits at the cached-input price, completion tokens at the output
price. Without a known price the summary has tokens only (``cost_usd`` is ``None``). Anthropic's cache
writes are billed at a premium this estimate leaves out; it counts them as fresh input.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from desktop_app.runtime.events.parts import ConversationUsage, TokenUsage
from desktop_app.runtime.providers.presets import Price, model_price


def add_usage(total: TokenUsage, more: TokenUsage) -> TokenUsage:
    """The field-by-field sum of two usages."""
    return TokenUsage(**{key: getattr(total, key) + getattr(more, key) for key in TokenUsage.model_fields})


def sum_usage_rows(rows: Iterable[Mapping[str, object]]) -> TokenUsage:
    """The total of stored usage rows (``Store.usage``)."""
    total = TokenUsage()
    for row in rows:
        values = {key: row.get(key) for key in TokenUsage.model_fields}
        total = add_usage(total, TokenUsage(**{k: int(v) for k, v in values.items() if isinstance(v, int)}))
    return total


def cache_hit_rate(usage: TokenUsage) -> float | None:
    """Percent of prompt tokens served from the cache; ``None`` when the provider reported no cache counts."""
    hit, miss = usage.cache_hit_tokens, usage.cache_miss_tokens
    if hit + miss > 0:
        return 100.0 * hit / (hit + miss)
    return None


def estimate_cost(usage: TokenUsage, price: Price) -> float:
    """US dollars for ``usage`` at ``price`` (per million tokens)."""
    hit = min(usage.cache_hit_tokens, usage.prompt_tokens)
    fresh = usage.prompt_tokens - hit
    return (fresh * price.input + hit * price.cached_input + usage.completion_tokens * price.output) / 1_000_000


def summarize(usage: TokenUsage, base_url: str, model: str) -> ConversationUsage:
    """The summary a ``RunFinished`` carries: the totals, the hit rate and, when the price is known, the cost."""
    price = model_price(base_url, model)
    return ConversationUsage(
        tokens=usage,
        cache_hit_rate=cache_hit_rate(usage),
        cost_usd=round(estimate_cost(usage, price), 6) if price is not None else None,
        model=model,
    )


def describe(summary: ConversationUsage) -> str:
    """One line for a footer or a terminal: ``12.3k tokens · cache hit 81 % · ≈ $0.0042``."""
    tokens = summary.tokens
    text = f"{_count(tokens.prompt_tokens)} prompt · {_count(tokens.completion_tokens)} completion tokens"
    if summary.cache_hit_rate is not None:
        text += f" · cache hit {summary.cache_hit_rate:.0f} %"
    if summary.cost_usd is not None:
        text += f" · ≈ ${summary.cost_usd:.4f}" if summary.cost_usd < 1 else f" · ≈ ${summary.cost_usd:.2f}"
    return text


def _count(n: int) -> str:
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"
