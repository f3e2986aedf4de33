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


def test_redact_the_token_shapes_the_importer_moves_to_the_keyring() -> None:
    secrets = {
        "ghp_": "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
        "github_pat_": "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "xoxb-": "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKlMnOp",
        "glpat-": "glpat-" + "Abcdefghij1234567890",
        "AIza": "AIza" + "SyA1234567890abcdefghijklmnopqrstu",
        "AKIA": "AKIA" + "IOSFODNN7EXAMPLE",
        "eyJ": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    }
    for prefix, secret in secrets.items():
        redacted = redact(f"server said: {secret} (end)")
        assert secret[len(prefix) :] not in redacted, prefix
        assert redacted == f"server said: {prefix}[redacted] (end)", prefix


def test_redact_bearer_and_basic_credentials_wherever_they_appear() -> None:
    assert "s3cr3tT0ken" not in redact("{'Authorization': 'Bearer s3cr3tT0ken'}")
    assert "s3cr3tT0ken" not in redact("sent header Bearer s3cr3tT0ken to the server")
    assert "dXNlcjpwYXNz" not in redact("Authorization: Basic dXNlcjpwYXNz")
    assert "hunter22" not in redact("PASSWD=hunter22 client_secret: abcdef")
    assert "abcdef" not in redact("client_secret: abcdef")
    assert redact("the bearer of good news") == "the bearer of good news"


def test_log_file_is_redacted(tmp_path: Path) -> None:
    path = setup_logging(tmp_path)
    logging.getLogger("switchboard.test").warning("using token=abc123def")
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = path.read_text()
    assert "abc123def" not in text and "[redacted]" in text


def test_what_is_logged_before_the_log_file_opens_is_written_to_it_first(tmp_path: Path) -> None:
    """The app opens its log file after the first paint; records from before keep their order and pass the
    redaction step like every other line."""
    from desktop_app.paths import AppPaths
    from desktop_app.startup_log import open_log_file as _setup_logging
    from desktop_app.startup_log import start_logging as _start_logging

    root = logging.getLogger()
    before, level = list(root.handlers), root.level
    try:
        early = _start_logging("INFO")
        logging.getLogger("early").info("first, with key sk-abcdefghijklmnopqrstuvwxyz")
        paths = AppPaths(tmp_path / "c", tmp_path / "d", tmp_path / "logs").ensure()
        _setup_logging(paths, "INFO", early)
        assert early not in root.handlers
        logging.getLogger("late").info("second")
        for handler in root.handlers:
            handler.flush()
        text = (tmp_path / "logs" / "switchboard.log").read_text(encoding="utf-8")
        assert text.index("first, with key sk-abcdefgh[redacted]") < text.index("second")
        assert "abcdefghijklmnopqrstuvwxyz" not in text
    finally:
        for handler in [h for h in root.handlers if h not in before]:
            root.removeHandler(handler)
            handler.close()
        root.setLevel(level)
