"""Logging setup: one rotating file under the log folder, with anything that looks like a secret redacted."""

from __future__ import annotations

import logging
import logging.handlers
import re
from pathlib import Path

_SECRET_PATTERNS = [
    # "Authorization: Bearer x", also inside a dict repr ('Authorization': 'Bearer x') and for Basic auth
    re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token)?\s*)[^\s'\",}]+"),
    re.compile(r"(\b(?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"(?i)((?:api[_-]?key|token|secret|passw(?:or)?d|credentials?)[\"']?\s*[:=]\s*[\"']?)[^\s'\",}]+"),
    # The token shapes the mcp.json importer moves into the keyring (runtime/host/secrets.py), kept short here
    re.compile(r"\b(sk-[A-Za-z0-9_\-]{8})[A-Za-z0-9_\-]+"),
    re.compile(r"\b(gh[pousr]_|github_pat_|xox[abposr]-|glpat-|AIza)[A-Za-z0-9_\-]{8,}"),
    re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\b(eyJ)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
]


def redact(text: str) -> str:
    """Replace anything that looks like a key or token with ``[redacted]`` (keeping a short prefix)."""
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + "[redacted]", text)
    return text


class RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def setup_logging(log_dir: Path, *, level: int = logging.INFO) -> Path:
    """Log to ``switchboard.log`` in ``log_dir`` (rotating, 2 MB × 3). Returns the file path."""
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / "switchboard.log"
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "_switchboard", False)]:
        root.removeHandler(old)
        old.close()
    handler._switchboard = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)
    # Third-party chatter stays out of the log unless it is a warning.
    for noisy in ("httpx", "httpcore", "httpx2", "httpcore2", "mcp", "asyncio"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return path
