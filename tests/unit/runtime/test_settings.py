"""Settings: defaults, round trip, and broken files reported with path/line/column and never overwritten."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.settings import (
    ProviderSettings,
    Settings,
    infer_dialect,
    load_settings,
    save_settings,
)


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    settings = load_settings(tmp_path / "settings.json")
    assert settings == Settings()
    assert not settings.provider.configured
    assert settings.max_tool_rounds == 25


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "settings.json"
    settings = Settings(provider=ProviderSettings(base_url="https://api.deepseek.com", model="deepseek-chat"))
    save_settings(path, settings)
    assert load_settings(path) == settings


def test_broken_json_is_reported_with_line_and_column_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    broken = '{\n  "provider": {"model": "x",}\n}\n'
    path.write_text(broken)
    with pytest.raises(ConfigError) as info:
        load_settings(path)
    assert info.value.line == 2 and info.value.column is not None
    assert str(path) in str(info.value)
    assert path.read_text() == broken


def test_bad_field_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"max_tool_rounds": "many"}')
    with pytest.raises(ConfigError, match="max_tool_rounds"):
        load_settings(path)


def test_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"version": 99}')
    with pytest.raises(ConfigError, match="newer Switchboard"):
        load_settings(path)


def test_dialect_inferred_from_base_url() -> None:
    assert infer_dialect("https://api.deepseek.com/v1") == "deepseek"
    assert infer_dialect("http://127.0.0.1:1234/v1") == "openai"
