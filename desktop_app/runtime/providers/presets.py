"""Provider presets: the well-known endpoints the provider dialog offers, each with its base URL and dialect.

A preset only fills the form (base URL, dialect, suggested models); what gets saved is ordinary
``ProviderSettings``. Local presets (Ollama, LM Studio) listen on loopback and need no key; the discovery
module probes them. Custom is the empty preset for any other OpenAI-compatible endpoint.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from urllib.parse import urlsplit

from desktop_app.runtime.settings import Dialect


@dataclass(frozen=True)
class Price:
    """What a model costs, in US dollars per million tokens: fresh input, cached input and output."""

    input: float
    cached_input: float
    output: float


NO_PRICES: Mapping[str, Price] = MappingProxyType({})
NO_WINDOWS: Mapping[str, int] = MappingProxyType({})


@dataclass(frozen=True)
class Preset:
    """A known model endpoint.

    ``models`` are suggestions for the (editable) model field; ``models_need_key`` says whether listing
    models needs an API key (Anthropic's does); ``local`` marks servers on this machine.
    """

    key: str
    name: str
    base_url: str
    dialect: Dialect
    models: tuple[str, ...] = ()
    local: bool = False
    needs_key: bool = True
    models_need_key: bool = False
    note: str = ""
    prices: Mapping[str, Price] = field(default_factory=lambda: NO_PRICES)
    context_windows: Mapping[str, int] = field(default_factory=lambda: NO_WINDOWS)
    """Context windows in tokens per model name (matched like ``prices``); unlisted: not known."""
    """List prices per model name (a dated snapshot such as ``claude-sonnet-4-5-20250929`` matches its
    name's prefix); a model not listed has no known price, and only its tokens are shown."""

    @property
    def label(self) -> str:
        return f"{self.name} (local)" if self.local else self.name


OPENAI = Preset(
    "openai",
    "OpenAI",
    "https://api.openai.com/v1",
    "openai",
    ("gpt-4o-mini", "gpt-4o"),
    prices=MappingProxyType(
        {
            "gpt-4o-mini": Price(0.15, 0.075, 0.60),
            "gpt-4o": Price(2.50, 1.25, 10.00),
            "gpt-4.1-mini": Price(0.40, 0.10, 1.60),
            "gpt-4.1": Price(2.00, 0.50, 8.00),
        }
    ),
    context_windows=MappingProxyType(
        {"gpt-4o-mini": 128_000, "gpt-4o": 128_000, "gpt-4.1-mini": 1_047_576, "gpt-4.1": 1_047_576}
    ),
)
DEEPSEEK = Preset(
    "deepseek",
    "DeepSeek",
    "https://api.deepseek.com",
    "deepseek",
    ("deepseek-chat", "deepseek-reasoner"),
    note="deepseek-reasoner always thinks; deepseek-chat thinks when Thinking is on.",
    prices=MappingProxyType({"deepseek-chat": Price(0.28, 0.028, 0.42), "deepseek-reasoner": Price(0.28, 0.028, 0.42)}),
    context_windows=MappingProxyType({"deepseek-chat": 128_000, "deepseek-reasoner": 128_000}),
)
ANTHROPIC = Preset(
    "anthropic",
    "Anthropic",
    "https://api.anthropic.com",
    "anthropic",
    ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"),
    models_need_key=True,
    note="Type any model name; fetching the list needs your API key.",
    prices=MappingProxyType(
        {
            "claude-sonnet-4-5": Price(3.00, 0.30, 15.00),
            "claude-opus-4-1": Price(15.00, 1.50, 75.00),
            "claude-haiku-4-5": Price(1.00, 0.10, 5.00),
        }
    ),
    context_windows=MappingProxyType(
        {"claude-sonnet-4-5": 200_000, "claude-opus-4-1": 200_000, "claude-haiku-4-5": 200_000}
    ),
)
OPENROUTER = Preset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", "openai")
OLLAMA = Preset("ollama", "Ollama", "http://127.0.0.1:11434/v1", "openai", local=True, needs_key=False)
LM_STUDIO = Preset("lmstudio", "LM Studio", "http://127.0.0.1:1234/v1", "openai", local=True, needs_key=False)
CUSTOM = Preset("custom", "Custom", "", "openai", note="Any OpenAI-compatible endpoint (vLLM, llama.cpp…).")

PRESETS: tuple[Preset, ...] = (OPENAI, DEEPSEEK, ANTHROPIC, OPENROUTER, OLLAMA, LM_STUDIO, CUSTOM)
LOCAL_PRESETS: tuple[Preset, ...] = tuple(p for p in PRESETS if p.local)


def preset(key: str) -> Preset:
    """The preset with this ``key``; ``KeyError`` names the known keys."""
    for candidate in PRESETS:
        if candidate.key == key:
            return candidate
    raise KeyError(f"unknown provider preset {key!r}; known: {', '.join(p.key for p in PRESETS)}")


def key_required(base_url: str) -> bool:
    """Whether an endpoint cannot work without an API key: one of the hosted presets (OpenAI, DeepSeek,
    Anthropic, OpenRouter). Local and custom endpoints may run without one."""
    found = match_preset(base_url)
    return found is not CUSTOM and found.needs_key and not found.local


def _normalized(url: str) -> tuple[str, str, int | None, str]:
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    if host == "localhost":
        host = "127.0.0.1"
    try:
        port = parts.port
    except ValueError:
        port = None
    return parts.scheme.lower(), host, port, parts.path.rstrip("/")


def match_preset(base_url: str) -> Preset:
    """The preset whose base URL this is (trailing slash and ``localhost`` ignored), else Custom."""
    if not base_url.strip():
        return CUSTOM
    wanted = _normalized(base_url)
    for candidate in PRESETS:
        if candidate.base_url and _normalized(candidate.base_url) == wanted:
            return candidate
    return CUSTOM


def model_price(base_url: str, model: str) -> Price | None:
    """The list price of ``model`` at ``base_url``'s preset, ``None`` when it is not known (custom and local
    endpoints, unlisted models). The longest listed name that ``model`` starts with wins."""
    prices = match_preset(base_url).prices
    if model in prices:
        return prices[model]
    matches = [name for name in prices if model.startswith(name + "-")]
    return prices[max(matches, key=len)] if matches else None


__all__ = [
    "ANTHROPIC",
    "CUSTOM",
    "DEEPSEEK",
    "LM_STUDIO",
    "LOCAL_PRESETS",
    "OLLAMA",
    "OPENAI",
    "OPENROUTER",
    "PRESETS",
    "Preset",
    "Price",
    "key_required",
    "match_preset",
    "model_price",
    "preset",
]
