"""A provider's HTTP error body in words a person can read (part of the kernel: ``errors`` uses it).

``error_message`` finds the provider's own message in an error body (``{"error": {"message": …}}``,
``{"error": "…"}``, ``{"message": …}``, ``{"detail": …}``, or the first line of a plain-text body; an HTML page
gives none); ``raw_details`` is the body head as it came, for a details view. Both pass the redaction step.
"""

from __future__ import annotations

import json
from typing import Any

from desktop_app.runtime.redaction import redact

MESSAGE_LIMIT = 300
DETAILS_LIMIT = 4000


def _find_message(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("message", "error", "detail", "msg", "error_description", "title"):
            found = _find_message(value.get(key))
            if found:
                return found
    if isinstance(value, list) and value:
        return _find_message(value[0])
    return None


def _error_type(document: Any) -> str | None:
    """``error.type`` or ``error.code`` (``invalid_request_error``, ``rate_limit_exceeded``) when it is a word."""
    error = document.get("error") if isinstance(document, dict) else None
    if isinstance(error, dict):
        for key in ("type", "code"):
            value = error.get(key)
            if isinstance(value, str) and value.strip() and " " not in value.strip():
                return value.strip()
    return None


def error_message(body: str) -> str | None:
    """The provider's own one-line message in ``body``, redacted, or ``None``."""
    text = body.strip()
    if not text:
        return None
    try:
        document = json.loads(text)
        found = _find_message(document)
        kind = _error_type(document)
        if found and kind and kind not in found:
            found = f"{found} ({kind})"
    except ValueError:
        if text.lstrip().startswith("<"):  # an HTML error page: nothing worth quoting
            return None
        found = text.splitlines()[0]
    if not found:
        return None
    line = " ".join(found.split())
    if len(line) > MESSAGE_LIMIT:
        line = line[: MESSAGE_LIMIT - 1] + "…"
    return redact(line)


def raw_details(body: str) -> str | None:
    """The body as it came (its head), redacted, for a details toggle; ``None`` when empty."""
    text = body.strip()
    if not text:
        return None
    return redact(text[:DETAILS_LIMIT])


__all__ = ["error_message", "raw_details"]
