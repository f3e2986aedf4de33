"""Issue 21 item 17: ``switchboard serve --token-env`` refuses a bearer token too short to stand up to guessing."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from desktop_app.cli import main as cli_main
from desktop_app.cli.serve import MIN_TOKEN_LENGTH


@pytest.mark.parametrize("token", ["x", "a" * (MIN_TOKEN_LENGTH - 1)])
def test_a_short_token_is_refused_before_anything_is_served(
    token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SB_SHORT_TOKEN", token)
    out, err = io.StringIO(), io.StringIO()
    code = cli_main(["serve", "--token-env", "SB_SHORT_TOKEN", "--home", str(tmp_path / "h")], out=out, err=err)
    assert code == 2
    assert f"is {len(token)} characters; use at least {MIN_TOKEN_LENGTH}" in err.getvalue()
    assert out.getvalue() == ""
    assert not (tmp_path / "h").exists() or not list((tmp_path / "h").rglob("*.db"))
