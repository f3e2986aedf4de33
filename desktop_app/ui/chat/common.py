"""Small helpers shared by the chat blocks: the error and success colours (token roles that format as the theme in
force), JSON display and HTML escaping."""

from __future__ import annotations

from typing import Any

from desktop_app.ui.theme.tokens import Role

ERROR_COLOR = Role("danger")
OK_COLOR = Role("success")
WARN_COLOR = Role("warning")
MUTED_COLOR = Role("text_muted")


def pretty_json(value: Any) -> str:
    import json  # with the first tool card, not before the first paint

    try:
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError):
        return repr(value)


def compact_json(value: Any, limit: int = 160) -> str:
    """One-line JSON, cut to ``limit`` characters with an ellipsis."""
    import json

    try:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
