"""Model discovery: list an endpoint's models, and find model servers running on this machine.

``list_models`` asks ``GET <base>/models`` (OpenAI shape ``{"data": [{"id": ...}]}``; Anthropic's
``/v1/models`` with its own key headers) and turns every failure into a ``ModelListError`` that says what
to do. ``detect_local_servers`` probes only loopback addresses (the local presets: Ollama, LM Studio) with
a short timeout, concurrently, and returns the presets that answered, with their model lists.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from desktop_app.runtime.errors import ProviderError
from desktop_app.runtime.providers.presets import LOCAL_PRESETS, Preset
from desktop_app.runtime.redaction import remember
from desktop_app.runtime.sdk_types import OnFirstUse
from desktop_app.runtime.settings import Dialect

if TYPE_CHECKING:
    import httpx
else:
    httpx = OnFirstUse("httpx")  # imported with the first probe, not with the provider dialog

log = logging.getLogger(__name__)

LIST_TIMEOUT_S = 15.0
PROBE_TIMEOUT_S = 0.75
ANTHROPIC_VERSION = "2023-06-01"
_BODY_HEAD = 300


class ModelListError(ProviderError):
    """Listing an endpoint's models failed; the message says why and what to do."""

    code = "model_list_error"


def models_url(base_url: str, dialect: Dialect) -> str:
    """``<base>/models``; for Anthropic ``<base>/v1/models`` unless the base already ends with ``/v1``."""
    base = base_url.strip().rstrip("/")
    if dialect == "anthropic" and not base.endswith("/v1"):
        base += "/v1"
    return f"{base}/models"


def _headers(api_key: str | None, dialect: Dialect) -> dict[str, str]:
    remember(api_key)  # a key typed in the dialog but not saved yet is masked in what the endpoint answers
    api_key = api_key.strip() if api_key else api_key
    headers = {"Accept": "application/json"}
    if dialect == "anthropic":
        headers["anthropic-version"] = ANTHROPIC_VERSION
        if api_key:
            headers["x-api-key"] = api_key
    elif api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def parse_model_ids(payload: Any) -> list[str]:
    """The model ids of an OpenAI-shaped list (``{"data": [{"id": ...}]}``), sorted, without duplicates.

    Raises ``ValueError`` when the payload is not that shape.
    """
    data = payload.get("data") if isinstance(payload, Mapping) else None
    if not isinstance(data, list):
        raise ValueError("no 'data' list")
    ids = {item["id"] for item in data if isinstance(item, Mapping) and isinstance(item.get("id"), str)}
    return sorted(i for i in ids if i.strip())


CONTEXT_WINDOW_KEYS = (
    "context_length",  # OpenRouter, Together, DeepInfra; vLLM's ``max_model_len`` below
    "context_window",  # Groq, Mistral
    "max_context_length",  # LM Studio
    "loaded_context_length",
    "max_model_len",
    "max_input_tokens",
    "input_token_limit",
)
"""Where model lists put a model's context window (tokens), by endpoint family; the first one set wins."""


def _window_of(item: Mapping[str, Any]) -> int | None:
    sources = [item]
    for nested in ("top_provider", "capabilities", "meta"):
        value = item.get(nested)
        if isinstance(value, Mapping):
            sources.append(value)
    for source in sources:
        for key in CONTEXT_WINDOW_KEYS:
            value = source.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
    return None


def parse_context_windows(payload: Any) -> dict[str, int]:
    """``{model id: context window}`` for the models of an OpenAI-shaped list that state their window (see
    ``CONTEXT_WINDOW_KEYS``); models that do not say are left out."""
    data = payload.get("data") if isinstance(payload, Mapping) else None
    windows: dict[str, int] = {}
    for item in data if isinstance(data, list) else []:
        if isinstance(item, Mapping) and isinstance(item.get("id"), str):
            window = _window_of(item)
            if window is not None:
                windows[item["id"]] = window
    return windows


async def list_context_windows(
    base_url: str,
    api_key: str | None,
    dialect: Dialect,
    *,
    client: httpx.AsyncClient | None = None,
    timeout_s: float = LIST_TIMEOUT_S,
) -> dict[str, int]:
    """The context windows the endpoint's model list states (``parse_context_windows``). Raises
    ``ModelListError`` like ``list_models``."""
    url = models_url(base_url, dialect)
    headers = _headers(api_key, dialect)

    async def fetch(http: httpx.AsyncClient) -> dict[str, int]:
        try:
            response = await http.get(url, headers=headers, timeout=timeout_s)
        except httpx.HTTPError as exc:
            raise ModelListError(f"Could not reach {url} ({exc or type(exc).__name__}).") from exc
        if not response.is_success:
            raise ModelListError(_http_problem(url, response))
        try:
            return parse_context_windows(response.json())
        except ValueError as exc:
            raise ModelListError(f"{url} did not answer with a JSON model list.") from exc

    if client is not None:
        return await fetch(client)
    async with httpx.AsyncClient() as own:
        return await fetch(own)


def _http_problem(url: str, response: httpx.Response) -> str:
    status = response.status_code
    if status in (401, 403):
        return f"The endpoint refused the request (HTTP {status}): check the API key, then fetch again."
    if status == 404:
        return f"{url} has no model list (HTTP 404). Check the base URL, or type the model name instead."
    head = response.text[:_BODY_HEAD].strip()
    return f"Listing models at {url} failed (HTTP {status}){': ' + head if head else ''}. Try again later."


async def _get_models(client: httpx.AsyncClient, url: str, headers: dict[str, str], timeout_s: float) -> list[str]:
    try:
        response = await client.get(url, headers=headers, timeout=timeout_s)
    except httpx.InvalidURL as exc:
        raise ModelListError(f"{url} is not a valid URL ({exc}). Check the base URL.") from exc
    except httpx.TimeoutException as exc:
        raise ModelListError(f"{url} did not answer within {timeout_s:g} s. Check the base URL.") from exc
    except httpx.HTTPError as exc:
        reason = str(exc) or type(exc).__name__
        raise ModelListError(
            f"Could not reach {url} ({reason}). Check the base URL and that the server is running."
        ) from exc
    if not response.is_success:
        raise ModelListError(_http_problem(url, response))
    try:
        return parse_model_ids(response.json())
    except ValueError as exc:
        raise ModelListError(
            f"{url} did not answer with an OpenAI-style model list. Type the model name instead."
        ) from exc


async def list_models(
    base_url: str,
    api_key: str | None,
    dialect: Dialect,
    *,
    client: httpx.AsyncClient | None = None,
    timeout_s: float = LIST_TIMEOUT_S,
) -> list[str]:
    """The model ids the endpoint offers, sorted. Raises ``ModelListError`` with what to do on failure."""
    if not base_url.strip().lower().startswith(("http://", "https://")):
        raise ModelListError("The base URL must start with http:// or https:// before models can be fetched.")
    url = models_url(base_url, dialect)
    headers = _headers(api_key, dialect)
    if client is not None:
        return await _get_models(client, url, headers, timeout_s)
    async with httpx.AsyncClient() as own:
        return await _get_models(own, url, headers, timeout_s)


def is_loopback_url(url: str) -> bool:
    """Whether the URL's host is a literal loopback address (127.0.0.0/8 or ::1); names never count."""
    host = urlsplit(url).hostname or ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def _probe(client: httpx.AsyncClient, candidate: Preset, timeout_s: float) -> Preset | None:
    try:
        models = await _get_models(client, models_url(candidate.base_url, candidate.dialect), {}, timeout_s)
    except ModelListError as exc:
        log.debug("no %s at %s: %s", candidate.name, candidate.base_url, exc)
        return None
    return replace(candidate, models=tuple(models))


async def detect_local_servers(
    *,
    client: httpx.AsyncClient | None = None,
    candidates: Iterable[Preset] = LOCAL_PRESETS,
    timeout_s: float = PROBE_TIMEOUT_S,
) -> list[Preset]:
    """The candidates that answer ``GET <base>/models`` on loopback, with the models they listed.

    Only literal loopback addresses are probed; any other candidate is skipped (and logged), so detection
    never sends a request off this machine. Probes run concurrently, each bounded by ``timeout_s``.
    """
    local = []
    for candidate in candidates:
        if is_loopback_url(candidate.base_url):
            local.append(candidate)
        else:
            log.warning("not probing %s: %s is not a loopback address", candidate.name, candidate.base_url)
    if not local:
        return []

    async def probe_all(http: httpx.AsyncClient) -> list[Preset | None]:
        return list(await asyncio.gather(*(_probe(http, c, timeout_s) for c in local)))

    if client is not None:
        found = await probe_all(client)
    else:
        async with httpx.AsyncClient(trust_env=False) as own:  # no proxy for loopback probes
            found = await probe_all(own)
    return [p for p in found if p is not None]


__all__ = [
    "ModelListError",
    "detect_local_servers",
    "is_loopback_url",
    "list_context_windows",
    "list_models",
    "models_url",
    "parse_context_windows",
    "parse_model_ids",
]
