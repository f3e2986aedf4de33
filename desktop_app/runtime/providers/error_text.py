"""Turning a provider's HTTP error body into words a person can read.

``provider_name`` names the endpoint ("DeepSeek", "OpenAI", or the host name); ``error_message`` and
``raw_details`` (the provider's own message in an error body, and the body head for a details view) live in
the kernel's :mod:`desktop_app.runtime.error_body`, which ``errors`` uses, and are re-exported here.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from desktop_app.runtime.error_body import error_message, raw_details
from desktop_app.runtime.providers.presets import match_preset


def provider_name(base_url: str) -> str:
    """The preset's name for a known endpoint, else the URL's host (``api.example.com``)."""
    preset = match_preset(base_url)
    if preset.base_url:
        return preset.name
    host = urlsplit(base_url.strip()).hostname or ""
    if host.endswith("deepseek.com"):
        return "DeepSeek"
    if host.endswith("anthropic.com"):
        return "Anthropic"
    if host.endswith("openai.com"):
        return "OpenAI"
    return host or "The model provider"


__all__ = ["error_message", "provider_name", "raw_details"]
