"""User settings: declared once (type, default, description), validated, versioned, saved atomically.

A broken settings file is reported with its path, line and column and is never overwritten: the caller
gets a ``ConfigError`` and decides to run on defaults.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from desktop_app.runtime.errors import ConfigError

SETTINGS_VERSION = 1
Dialect = Literal["openai", "deepseek", "anthropic"]


def infer_dialect(base_url: str) -> Dialect:
    """DeepSeek specifics switch on when the base URL points at DeepSeek."""
    host = urlsplit(base_url).hostname or ""
    if host.endswith("deepseek.com"):
        return "deepseek"
    if host.endswith("anthropic.com"):
        return "anthropic"
    return "openai"


class ProviderSettings(BaseModel):
    """Which model endpoint to talk to. The API key is never stored here: it lives in the keyring."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field("", description="OpenAI-compatible base URL, e.g. https://api.deepseek.com")
    model: str = Field("", description="Model name as the endpoint expects it")
    dialect: Dialect = Field(
        "openai", description="Wire dialect: openai, deepseek (DeepSeek extras) or anthropic (Messages API)"
    )
    api_key_env: str | None = Field(None, description="Read the API key from this environment variable")
    thinking: bool | None = Field(None, description="DeepSeek/Anthropic: thinking on/off (None: the model's default)")
    reasoning_effort: str | None = Field(None, description="DeepSeek: reasoning effort when thinking is on")
    stall_timeout_s: float = Field(90.0, gt=0, description="Give up on a stream silent for this long")

    @property
    def configured(self) -> bool:
        return bool(self.base_url.strip() and self.model.strip())

    @property
    def key_name(self) -> str:
        """The keyring entry that holds this endpoint's API key."""
        return f"api-key:{self.base_url.rstrip('/')}"


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = Field(SETTINGS_VERSION, description="Settings schema version")
    provider: ProviderSettings = Field(default_factory=ProviderSettings)
    max_tool_rounds: int = Field(25, ge=1, description="Tool rounds per user turn before the run pauses")
    system_prompt: str = Field("", description="Optional system prompt sent at the start of a conversation")
    auto_approve_read_only: bool = Field(
        False, description="Run tools that declare readOnlyHint without asking (built-in read-only tools never ask)"
    )


def _validation_problem(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def load_settings(path: Path) -> Settings:
    """Read settings; a missing file gives defaults, a broken one raises ``ConfigError`` (file untouched)."""
    try:
        raw = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        raise ConfigError(path, f"cannot read the settings file: {exc.strerror}") from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ConfigError(path, f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno) from exc
    if not isinstance(data, dict):
        raise ConfigError(path, "the settings file must hold a JSON object")
    version = data.get("version", SETTINGS_VERSION)
    if isinstance(version, int) and version > SETTINGS_VERSION:
        raise ConfigError(path, f"written by a newer Switchboard (settings version {version}); update the app")
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(path, _validation_problem(exc)) from exc


def save_settings(path: Path, settings: Settings) -> None:
    """Write settings atomically (temp file + rename), so a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = settings.model_dump_json(indent=2, exclude_defaults=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".settings-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
