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


def test_the_log_file_rolls_over_as_rotating_file_handler_did(tmp_path: Path) -> None:
    """The next record that would pass the size renames the file to ``.1`` (``.1`` to ``.2`` …) and starts a
    new one; past ``backups`` the oldest is dropped."""
    from desktop_app.log import _LogFileHandler

    folder = tmp_path / "logs"
    folder.mkdir()
    handler = _LogFileHandler(folder / "switchboard.log", max_bytes=120, backups=2)
    handler.setFormatter(logging.Formatter("%(message)s"))
    try:
        for n in range(1, 8):
            handler.handle(logging.makeLogRecord({"msg": f"record {n} " + "x" * 40}))
    finally:
        handler.close()
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["switchboard.log", "switchboard.log.1", "switchboard.log.2"]
    lines = {name: (folder / name).read_text(encoding="utf-8").split() for name in names}
    assert [w for w in lines["switchboard.log"] if w.isdigit()] == ["7"]
    assert [w for w in lines["switchboard.log.1"] if w.isdigit()] == ["5", "6"]
    assert [w for w in lines["switchboard.log.2"] if w.isdigit()] == ["3", "4"]


def test_opening_the_log_file_imports_no_logging_handlers(tmp_path: Path) -> None:
    """``logging.handlers`` (with ``pickle`` and ``socket``, ~2.5 ms) is not on the way to ready (issue 27)."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom pathlib import Path\nfrom desktop_app.log import setup_logging\n"
        f"setup_logging(Path({str(tmp_path)!r}))\n"
        "import logging\nlogging.getLogger('x').warning('hello')\n"
        "print(sorted(m for m in ('logging.handlers', 'pickle') if m in sys.modules))\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
    assert "hello" in (tmp_path / "switchboard.log").read_text(encoding="utf-8")
