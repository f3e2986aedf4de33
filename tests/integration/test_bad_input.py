"""Bad input gets one line on stderr naming the path and what to do, and exit 2: never a traceback, never a
hang. ``switchboard ask`` and ``import-config`` through their entry point (``cli.main``), and the real
process where a hang is the risk (``--mcp-config /dev/zero``)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_app.cli import EXIT_USAGE, main

SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")
URL = "http://127.0.0.1:9/v1"


def _ask(home: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["ask", "--home", str(home), "--base-url", URL, *args, "hi"], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home" / "config").mkdir(parents=True)
    return tmp_path / "home"


def test_settings_with_invalid_utf8_is_a_one_line_error(home: Path) -> None:
    settings = home / "config" / "settings.json"
    settings.write_bytes(b'{"system_prompt": "caf\xe9"}')
    code, _, err = _ask(home)
    line = _one_line(err)
    assert code == EXIT_USAGE
    assert f"{settings}:1:" in line and "not valid UTF-8" in line and "save it as UTF-8" in line
    assert settings.read_bytes() == b'{"system_prompt": "caf\xe9"}'  # never rewritten


def test_pathological_nesting_is_a_one_line_error(home: Path) -> None:
    settings = home / "config" / "settings.json"
    settings.write_text("[" * 200_000)
    code, _, err = _ask(home)
    assert code == EXIT_USAGE and "nested too deeply" in _one_line(err) and str(settings) in err
    mcp = home / "mcp.json"
    mcp.write_text('{"mcpServers": ' + "[" * 200_000)
    settings.unlink()
    code, _, err = _ask(home, "--mcp-config", str(mcp))
    assert code == EXIT_USAGE and "nested too deeply" in _one_line(err) and str(mcp) in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_or_device_is_refused_as_mcp_config_and_as_attachment(home: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = _ask(home, "--mcp-config", str(fifo))
    assert code == EXIT_USAGE and f"{fifo}: this is a named pipe (FIFO), not a regular file" in _one_line(err)
    for target, kind in ((fifo, "a named pipe (FIFO)"), (Path("/dev/zero"), "a device")):
        code, _, err = _ask(home, "--attach", str(target))
        assert code == EXIT_USAGE
        assert _one_line(err) == f"switchboard: {target}: cannot attach it: it is {kind}; attach a regular file"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_mcp_config_dev_zero_in_the_real_process_ends_at_once(home: Path) -> None:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    args = [SWITCHBOARD, "ask", "--home", str(home), "--base-url", URL, "--mcp-config", "/dev/zero", "hi"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=30, env=env)
    assert proc.returncode == EXIT_USAGE
    assert "/dev/zero: this is a device, not a regular file" in _one_line(proc.stderr)


def _read_only(folder: Path) -> bool:
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        folder.chmod(0o500)
        return True
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(folder)], capture_output=True)
    return done.returncode == 0


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_a_read_only_home_is_a_one_line_error(tmp_path: Path) -> None:
    home = tmp_path / "ro-home"
    if not _read_only(home):
        pytest.skip("running as root and no read-only tmpfs can be mounted here")
    try:
        code, _, err = _ask(home)
    finally:
        subprocess.run(["umount", "-l", str(home)], capture_output=True) if os.geteuid() == 0 else home.chmod(0o700)
    line = _one_line(err)
    assert code == EXIT_USAGE
    assert str(home) in line and "make it writable, or pass --home DIR" in line


def test_unknown_mcp_json_fields_are_warned_about_with_their_path(home: Path, tmp_path: Path) -> None:
    mcp = tmp_path / "mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"fs": {"comand": "npx", "url": "http://127.0.0.1:9/mcp"}}}))
    _code, _, err = _ask(home, "--mcp-config", str(mcp), "--approve", "never")
    assert f"{mcp}: mcpServers.fs.comand: unknown field, ignored; check its spelling" in err
    mcp.write_text(json.dumps({"mcpServers": {"fs": {"command": "npx", "url": "http://127.0.0.1:9/mcp"}}}))
    code, _, err = _ask(home, "--mcp-config", str(mcp))
    assert code == EXIT_USAGE and "mcpServers.fs: has both command and url" in _one_line(err)


def test_every_settings_key_the_guide_names_is_accepted(tmp_path: Path) -> None:
    """The user guide's settings.json list (docs/settings.md), the Settings model and the truncation marker agree."""
    import re

    from desktop_app.runtime.host.outcomes import OUTPUT_LIMIT_SETTING
    from desktop_app.runtime.settings import Settings, load_settings

    readme = (Path(__file__).resolve().parents[2] / "docs" / "settings.md").read_text(encoding="utf-8")
    section = readme.split("## settings.json keys", 1)[1].split("\n#", 1)[0]
    paragraph = section.split("takes these keys;", 1)[1].split("Config files are read", 1)[0]
    named = set(re.findall(r"(?<![\w.])`([a-z_]+)`(?! characters)", paragraph)) - {
        "null",
        "auto",
        "base_url",
        "model",
        "dialect",
    }
    fields = set(Settings.model_fields) - {"version"}
    assert named == fields
    assert OUTPUT_LIMIT_SETTING in named
    defaults = Settings().model_dump(mode="json")
    for key in sorted(named):
        path = tmp_path / f"{key}.json"
        path.write_text(json.dumps({key: defaults[key]}))
        assert getattr(load_settings(path), key) == getattr(Settings(), key), key
    path = tmp_path / "limit.json"
    path.write_text(json.dumps({"tool_output_limit": 5000}))
    assert load_settings(path).tool_output_limit == 5000


def test_a_claude_desktop_file_is_labelled_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "Claude" / "claude_desktop_config.json"
    source.parent.mkdir()
    servers = {"local": {"command": "x"}, "remote": {"url": "https://example.com/mcp"}}
    source.write_text(json.dumps({"mcpServers": servers, "globalShortcut": "Ctrl+Space"}))
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    main(["import-config", str(source), "--home", str(tmp_path / "h")], out=out, err=err)
    assert out.getvalue().splitlines()[0] == f"Read {source} (Claude Desktop)."


def test_tool_output_limit_reaches_the_host(tmp_path: Path) -> None:
    from desktop_app.assembly import assemble
    from desktop_app.paths import app_paths
    from desktop_app.runtime.settings import Settings

    paths = app_paths(tmp_path / "h").ensure()
    built = assemble(paths, strict=True, settings=Settings(tool_output_limit=5000), persist=False)
    assert built.host.max_output_chars == 5000
