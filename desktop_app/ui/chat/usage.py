"""The usage footer of an assistant turn: prompt and completion tokens, and the prompt-cache hit rate."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from desktop_app.ui.theme.tokens import scaled_font, tabular

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev


def human_count(n: int) -> str:
    """1234 -> '1.2k', 999 -> '999'."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


class UsageFooter(QLabel):
    """Token usage of one assistant turn (summed over its model responses)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("usageFooter")
        self.setAccessibleName("Token usage")
        self.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.setFont(tabular(scaled_font(self.font(), "caption")))  # figures line up from turn to turn
        self.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        self.totals: dict[str, int] = {}
        self._turn_text = ""
        self.conversation_text = ""
        """The conversation's totals line under the turn's (hit rate, estimated cost), set when the run ends."""

    def add(self, usage: ev.TokenUsage) -> None:
        for key, value in usage.model_dump().items():
            self.totals[key] = self.totals.get(key, 0) + int(value)
        text = (
            f"{human_count(self.totals['prompt_tokens'])} prompt · "
            f"{human_count(self.totals['completion_tokens'])} completion tokens"
        )
        rate = cache_hit_rate(self.totals)
        if rate is not None:
            text += f" · cache hit {rate:.0f} %"
        self._turn_text = text
        self._show()
        if rate is not None:
            self.setToolTip(
                f"{self.totals['cache_hit_tokens']} prompt tokens came from the provider's cache"
                f" ({self.totals['cache_miss_tokens']} missed)"
            )

    def set_conversation(self, summary: ev.ConversationUsage) -> None:
        """Show the conversation's totals (all its runs) as a second line, with the estimated cost if known."""
        from desktop_app.runtime.usage import describe

        self.conversation_text = "Conversation: " + describe(summary)
        self._show()

    def _show(self) -> None:
        self.setText("\n".join(t for t in (self._turn_text, self.conversation_text) if t))


def cache_hit_rate(totals: dict[str, int]) -> float | None:
    """Percent of prompt tokens served from cache: hit / (hit + miss), or hit / prompt when no miss count.

    ``None`` when the provider reported no cache tokens at all.
    """
    hit, miss, prompt = (
        totals.get("cache_hit_tokens", 0),
        totals.get("cache_miss_tokens", 0),
        totals.get("prompt_tokens", 0),
    )
    if hit + miss > 0:
        return 100.0 * hit / (hit + miss) if miss > 0 else (100.0 * hit / prompt if prompt > 0 else 100.0)
    return None
