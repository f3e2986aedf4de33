"""Logs redact anything that looks like a key."""

from __future__ import annotations

import logging
from pathlib import Path

from desktop_app.log import redact, setup_logging


def test_redact_common_secret_shapes() -> None:
    assert "sk-abcdefgh[redacted]" in redact("key sk-abcdefghijklmnopqrstuvwxyz")
    assert "secret123" not in redact("Authorization: Bearer secret123")
    assert "hunter2" not in redact('{"api_key": "hunter2"}')
    assert redact("nothing to hide") == "nothing to hide"


def test_log_file_is_redacted(tmp_path: Path) -> None:
    path = setup_logging(tmp_path)
    logging.getLogger("switchboard.test").warning("using token=abc123def")
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = path.read_text()
    assert "abc123def" not in text and "[redacted]" in text
