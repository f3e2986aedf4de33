"""How much of a tool result's media (image and embedded-resource blocks) the store keeps: the blocks that fit
in ``MEDIA_STORE_LIMIT`` together, in order; the recorder stores those and the result's text names the rest.
"""

from __future__ import annotations

import json
from typing import Any

MEDIA_STORE_LIMIT = 8 * 1024 * 1024
"""Characters of a tool result's image and resource blocks kept in the store (base64: ~6 MB of images); a
result with more keeps the blocks that fit, in order, and the rest is only named in its text."""


def storable_media(media: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The blocks of ``media`` that fit in ``MEDIA_STORE_LIMIT`` together."""
    kept, used = [], 0
    for block in media:
        size = len(json.dumps(block, ensure_ascii=False))
        if used + size > MEDIA_STORE_LIMIT:
            continue
        kept.append(block)
        used += size
    return kept
