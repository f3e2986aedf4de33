"""User settings: declared once (type, default, description), validated, versioned, saved atomically.

A broken settings file is reported with its path, line and column and is never overwritten: the caller
gets a ``ConfigError`` and decides to run on defaults.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from desktop_app.runtime.errors import ConfigError
from desktop_app.runtime.model_defaults import empty_list

SETTINGS_VERSION = 1
Dialect = Literal["openai", "deepseek", "anthropic"]
DeferralMode = Literal["auto", "always", "never"]


def infer_dialect(base_url: str) -> Dialect:
    """DeepSeek specifics switch on when the base URL points at DeepSeek."""
    host = urlsplit(base_url).hostname or ""
    if host.endswith("deepseek.com"):
        return "deepseek"
    if host.endswith("anthropic.com"):
        return "anthropic"
    return "openai"


_VISION_MARKERS = (
    "gpt-4o",
    "gpt-4.1",
    "gpt-4-turbo",
    "gpt-4-vision",
    "gpt-5",
    "claude",
    "gemini",
    "gemma3",
    "gemma-3",
    "llava",
    "bakllava",
    "pixtral",
    "vision",
    "-vl",
    "minicpm-v",
    "moondream",
    "llama4",
    "qwen-vl",
    "qwen2.5vl",
    "qvq",
)
_TEXT_ONLY_MARKERS = ("deepseek", "gpt-3.5", "o1-mini", "o3-mini", "-coder", "codestral")


def infer_supports_images(model: str, dialect: Dialect) -> bool | None:
    """Whether a model reads images, from its name: ``True``/``False`` when known, ``None`` when not.

    Anthropic models all do; DeepSeek's chat models do not; for other endpoints well-known vision families
    (GPT-4o/4.1/5, o3/o4, Gemini, LLaVA, Qwen-VL, Pixtral, …) do, and text-only families do not.
    """
    name = model.strip().lower().rsplit("/", 1)[-1]
    if dialect == "anthropic":
        return True
    if dialect == "deepseek" and "vl" not in name:
        return False
    if any(marker in name for marker in _TEXT_ONLY_MARKERS) and "vl" not in name:
        return False
    if any(marker in name for marker in _VISION_MARKERS) or name.startswith(("o1", "o3", "o4")):
        return True
    return None


class ProviderSettings(BaseModel):
    """Which model endpoint to talk to. The API key is never stored here: it lives in the keyring."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field("", title="Base URL", description="OpenAI-compatible base URL, e.g. https://api.deepseek.com")
    model: str = Field("", title="Model", description="Model name as the endpoint expects it")
    dialect: Dialect = Field(
        "openai",
        title="Dialect",
        description="Wire dialect: openai, deepseek (DeepSeek extras) or anthropic (Messages API)",
    )
    api_key_env: str | None = Field(
        None, title="API key variable", description="Read the API key from this environment variable"
    )
    thinking: bool | None = Field(
        None,
        title="Thinking",
        description="DeepSeek/Anthropic: thinking on, off, or as the model does by default",
        json_schema_extra={"none": "Model's default"},
    )
    reasoning_effort: str | None = Field(
        None,
        title="Reasoning effort",
        description="DeepSeek: reasoning effort when thinking is on",
        json_schema_extra={"none": "Model's default"},
    )
    stall_timeout_s: float = Field(
        90.0,
        gt=0,
        title="Stall timeout",
        description="Give up on a stream silent for this long",
        json_schema_extra={"unit": "seconds"},
    )
    supports_images: bool | None = Field(
        None,
        title="Reads images",
        description="Whether the model reads images (when not set: inferred from the model name and dialect)",
        json_schema_extra={"none": "From the model name"},
    )

    @property
    def takes_images(self) -> bool | None:
        """``supports_images`` when set, else what the model name says (``None``: unknown, images are sent)."""
        if self.supports_images is not None:
            return self.supports_images
        return infer_supports_images(self.model, self.dialect)

    @property
    def configured(self) -> bool:
        return bool(self.base_url.strip() and self.model.strip())

    @property
    def key_name(self) -> str:
        """The keyring entry that holds this endpoint's API key."""
        return f"api-key:{self.base_url.rstrip('/')}"


Theme = Literal["system", "light", "dark"]


class AppearanceSettings(BaseModel):
    """How the window looks. The theme code applies these (``desktop_app.ui.theme.appearance``)."""

    model_config = ConfigDict(extra="forbid")

    theme: Theme = Field(
        "system",
        title="Theme",
        description="Light or dark; “system” follows the operating system's setting",
        json_schema_extra={"labels": {"system": "Follow the system", "light": "Light", "dark": "Dark"}},
    )
    font_size: int = Field(
        0,
        ge=0,
        le=32,
        title="Font size",
        description="Text size in points; 0 uses the system's size",
        json_schema_extra={"zero": "System size", "unit": "points"},
    )


class ShortcutSettings(BaseModel):
    """Keyboard shortcuts, as Qt key sequences in portable text form (``Ctrl`` is ⌘ on macOS)."""

    model_config = ConfigDict(extra="forbid")

    new_chat: str = Field("Ctrl+N", title="New chat", json_schema_extra={"widget": "keysequence"})
    find: str = Field("Ctrl+F", title="Find in the conversation", json_schema_extra={"widget": "keysequence"})
    settings: str = Field("Ctrl+,", title="Open Settings", json_schema_extra={"widget": "keysequence"})
    tool_search: str = Field("Ctrl+K", title="Tool search panel", json_schema_extra={"widget": "keysequence"})
    copy_last_answer: str = Field(
        "Ctrl+Shift+C", title="Copy the last answer", json_schema_extra={"widget": "keysequence"}
    )
    ctrl_enter_sends: bool = Field(
        False,
        title="Ctrl+Enter sends, Enter adds a line",
        description="Swap the composer's keys (by default Enter sends and Shift+Enter adds a line)",
    )


class HttpHostSettings(BaseModel):
    """The host served as MCP over streamable HTTP on 127.0.0.1 (``desktop_app.runtime.serve.service``)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(
        False,
        title="Serve Switchboard as MCP over HTTP",
        description="Other MCP clients on this computer (editors, Claude Desktop, other Switchboards) can use "
        "your agents, with the bearer token below",
    )
    port: int = Field(
        0,
        ge=0,
        le=65535,
        title="Port",
        description="On 127.0.0.1 only; 0 picks a free port at each start (a fixed port keeps clients' configs valid)",
        json_schema_extra={"zero": "Automatic"},
    )
    expose: list[str] = Field(
        default_factory=empty_list,
        title="Also serve these MCP servers",
        description="Your MCP servers whose tools are offered next to the agents (their calls ask for approval)",
    )


class AppsSettings(BaseModel):
    """MCP Apps (``desktop_app.runtime.apps``): interactive views MCP servers link to their tools."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(
        True,
        title="Show app views",
        description="Tools of MCP servers that come with an interactive view (a chart, a form, a viewer) show it "
        "in the conversation; off: their text results only, and no web engine is loaded",
    )
    blocked_servers: list[str] = Field(
        default_factory=empty_list,
        title="Servers whose views are not shown",
        description="These MCP servers' tools show their text results only",
    )

    def allows(self, server: str) -> bool:
        """Whether ``server``'s views are shown (and MCP Apps is advertised to it)."""
        return self.enabled and server not in self.blocked_servers


AGENT_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,47}$"
DEFAULT_AGENT = "assistant"


class AgentSettings(BaseModel):
    """One agent (see :mod:`desktop_app.runtime.agents`): also read from ``agents/*.md`` frontmatter."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=AGENT_NAME_PATTERN, description="The agent's name; its tool is chat-with-<name>")
    description: str = Field("", description="What the agent is for (the description of its tool)")
    instructions: str = Field(
        "", description="The agent's system prompt (the body of its file)", json_schema_extra={"multiline": True}
    )
    provider: ProviderSettings | None = Field(None, description="Its own provider (null: the default provider)")
    model: str = Field("", description="Its model on that provider (empty: the provider's model)")
    servers: list[str] | None = Field(None, description="The MCP servers it may use (null: every server)")
    tools: list[str] | None = Field(
        None, description="Tool allowlist: 'server/tool', 'server/*' or a tool name, globs allowed (null: all)"
    )
    agents: list[str] = Field(default_factory=empty_list, description="The agents it may call ('*': every agent)")
    approval: Literal["ask", "always", "never"] | None = Field(
        None, description="Its approval default, never looser than the app's (null: the app's)"
    )


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = Field(SETTINGS_VERSION, description="Settings schema version")
    provider: ProviderSettings = Field(default_factory=ProviderSettings)
    max_tool_rounds: int = Field(
        25, ge=1, title="Tool rounds per turn", description="Tool rounds per user turn before the run pauses"
    )
    tool_result_replay_limit: int = Field(
        24_000,
        ge=0,
        title="Tool result size sent to the model",
        description="Longer tool results reach the model as their head and tail (0: always whole)",
        json_schema_extra={"zero": "Always whole", "unit": "characters"},
    )
    compact_threshold_percent: int = Field(
        80,
        ge=0,
        le=100,
        title="Compact at",
        description="Share of the context window: before a request that would fill more of the model's window, "
        "older turns are summarised (0: only when you ask)",
        json_schema_extra={"zero": "Only when you ask", "unit": "percent"},
    )
    compact_keep_turns: int = Field(
        2,
        ge=1,
        title="Turns kept verbatim",
        description="The latest turns a compaction never summarises",
    )
    system_prompt: str = Field(
        "",
        title="System prompt",
        description="Optional system prompt sent at the start of a conversation",
        json_schema_extra={"multiline": True},
    )
    auto_approve_read_only: bool = Field(
        False,
        title="Auto-approve tools marked read-only",
        description="Run tools that declare readOnlyHint without asking (built-in read-only tools never ask)",
    )
    vision_provider: ProviderSettings | None = Field(
        None, description="A vision-capable model that describes images for a main model that cannot read them"
    )
    max_attachment_text_bytes: int = Field(
        200 * 1024,
        ge=1024,
        title="Longest attached text",
        description="Text files longer than this are truncated (with a marker) when attached",
        json_schema_extra={"unit": "bytes"},
    )
    max_attachment_image_bytes: int = Field(
        5 * 1024 * 1024,
        ge=1024,
        title="Largest attached image",
        description="Images larger than this are refused when attached",
        json_schema_extra={"unit": "bytes"},
    )
    context_datetime: bool = Field(
        True, title="Send the date and time", description="Send the date, time and time zone with each prompt"
    )
    context_os: bool = Field(
        True, title="Send the operating system", description="Send the operating system with each prompt"
    )
    roots: list[str] = Field(
        default_factory=empty_list, description="Folders MCP servers may see (answered to roots/list as file:// URIs)"
    )
    hooks: dict[str, Any] = Field(
        default_factory=dict,
        description="Lifecycle hooks ({Event: [hook, …]}) and MCP message hooks ({'method?param=value': "
        "['server/tool', …]}); trusted, as they are your own (see the user guide, docs/hooks.md)",
    )
    tool_deferral: DeferralMode = Field(
        "auto",
        title="Defer tool definitions",
        description="Send MCP tools' schemas only once the model asks for them with tool_search",
        json_schema_extra={
            "labels": {"auto": "Automatically, past the thresholds below", "always": "Always", "never": "Never"}
        },
    )
    tool_deferral_context_percent: float = Field(
        5.0,
        gt=0,
        le=100,
        title="Share of the context window",
        description="Automatic: defer once the definitions would take more than this % of the context window",
        json_schema_extra={"unit": "percent"},
    )
    tool_deferral_max_tools: int = Field(
        40, ge=0, title="Number of tools", description="Automatic: defer once more than this many tools are offered"
    )
    context_window_tokens: int = Field(
        128_000,
        ge=1024,
        title="Context window",
        description="The model's context window, for the share above",
        json_schema_extra={"unit": "tokens"},
    )
    close_to_tray: bool = Field(
        True,
        title="Close to tray",
        description="Closing the window keeps Switchboard and its servers running in the tray (where a tray exists)",
    )
    notifications: bool = Field(
        True,
        title="Notifications",
        description="Notify when a conversation not on screen finishes, fails or waits for your approval",
    )
    start_at_login: bool = Field(
        False,
        title="Start at login, in the tray",
        description="Start Switchboard when you log in, without showing the window (XDG autostart, Run key, "
        "LaunchAgent)",
    )
    tool_output_limit: int | None = Field(
        100_000,
        ge=1000,
        title="Longest tool result (characters)",
        description="Tool results longer than this are cut, with a marker naming this setting (null: no limit)",
    )
    agents: list[AgentSettings] = Field(default_factory=empty_list, description="Agents defined in the settings")
    default_agent: str = Field(DEFAULT_AGENT, title="Default agent", description="The agent new conversations talk to")
    skills_folders: list[str] = Field(
        default_factory=empty_list, description="More folders of skills (each holding <name>/SKILL.md), after your own"
    )
    skills_read_external: bool = Field(
        False,
        title="Also read ~/.claude/skills and ~/.agents/skills",
        description="Use the skills you keep for other tools too (read only, never changed)",
    )
    plugins: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Installed plugins ({id: {enabled, format, version}}); they install disabled"
    )
    extensions: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Installed MCP Bundles ({name: {version, user_config}}); sensitive values are in the keyring",
    )
    http_host: HttpHostSettings = Field(default_factory=HttpHostSettings, title="MCP over HTTP")
    apps: AppsSettings = Field(default_factory=AppsSettings, title="Apps")
    appearance: AppearanceSettings = Field(default_factory=AppearanceSettings, title="Appearance")
    shortcuts: ShortcutSettings = Field(default_factory=ShortcutSettings, title="Keyboard shortcuts")


def _validation_problem(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def load_settings(path: Path) -> Settings:
    """Read settings; a missing file gives defaults, a broken one raises ``ConfigError`` (file untouched)."""
    from desktop_app.runtime.files import loads_json, read_config_text

    try:
        raw = read_config_text(path)  # a regular file, size-capped, valid UTF-8
    except FileNotFoundError:
        return Settings()
    data = loads_json(raw, path)
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
    write_text_atomically(path, settings.model_dump_json(indent=2, exclude_defaults=False) + "\n")


def write_text_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temp file beside ``path``, then rename it over ``path`` (the folder is created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
