"""Launch environment: unsafe variables, ${VAR} and ${keyring:…} at start-up, the login-shell PATH, command lookup."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ServerStartError
from desktop_app.runtime.host import ServerConfig
from desktop_app.runtime.host.environment import (
    LoginShellPath,
    check_env_safety,
    command_problem,
    expand_env,
    expand_headers,
    is_unsafe_env_var,
    login_shell_path,
    merge_paths,
    resolve_command,
    set_login_shell_path,
)
from desktop_app.runtime.host.host import Host, stdio_parameters

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX executables and shells")


@pytest.fixture
def fixed_login_path() -> Iterator[None]:
    set_login_shell_path(lambda: os.pathsep.join(["/from/login", "/usr/bin"]))
    yield
    set_login_shell_path(None)


def make_tool(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / name
    tool.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return tool


# -- unsafe variables ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "unsafe"),
    [
        ("LD_PRELOAD", True),
        ("ld_library_path", True),
        ("DYLD_INSERT_LIBRARIES", True),
        ("DYLD_FALLBACK_LIBRARY_PATH", True),
        ("NODE_OPTIONS", True),
        ("PYTHONPATH", True),
        ("PYTHONHOME", True),
        ("pythonhome", True),
        ("PATH", False),
        ("NODE_ENV", False),
        ("GITHUB_TOKEN", False),
    ],
)
def test_unsafe_variable_names(key: str, unsafe: bool) -> None:
    assert is_unsafe_env_var(key) is unsafe


def test_pythonhome_is_refused_and_the_deny_list_is_documented() -> None:
    from desktop_app.runtime.host.environment import UNSAFE_ENV_PREFIXES, UNSAFE_ENV_VARS

    config = ServerConfig(command="x", env={"PYTHONHOME": "/tmp/evil-python"})
    with pytest.raises(ServerStartError, match="refusing to set PYTHONHOME"):
        check_env_safety("evil", config)
    readme = (Path(__file__).resolve().parents[4] / "docs" / "servers.md").read_text(encoding="utf-8")
    deny_list = readme.split("The deny list:", 1)[1].split(". A GUI launch", 1)[0]
    for name in sorted(UNSAFE_ENV_VARS) + [f"{prefix}*" for prefix in UNSAFE_ENV_PREFIXES]:
        assert f"`{name}`" in deny_list, name


def test_unsafe_env_is_refused_with_a_clear_error() -> None:
    config = ServerConfig(command="x", env={"NODE_OPTIONS": "--require /tmp/evil.js", "LD_PRELOAD": "/tmp/x.so"})
    with pytest.raises(ServerStartError) as info:
        check_env_safety("evil", config)
    message = str(info.value)
    assert "MCP server 'evil': refusing to set LD_PRELOAD, NODE_OPTIONS through 'env'" in message
    assert '"allowUnsafeEnv": true' in message
    with pytest.raises(ServerStartError, match="refusing to set LD_PRELOAD"):
        stdio_parameters(config, name="evil", search_path="/usr/bin")


@posix_only
def test_unsafe_env_is_allowed_with_allow_unsafe_env(tmp_path: Path) -> None:
    make_tool(tmp_path / "bin", "srv")
    config = ServerConfig.model_validate({"command": "srv", "env": {"PYTHONPATH": "/opt/lib"}, "allowUnsafeEnv": True})
    check_env_safety("trusted", config)
    params = stdio_parameters(config, name="trusted", search_path=str(tmp_path / "bin"))
    assert params.env is not None and params.env["PYTHONPATH"] == "/opt/lib"


# -- expansion at start-up ----------------------------------------------------------------------


def test_env_and_headers_expand_variables_and_keyring_references() -> None:
    credentials = Credentials()
    credentials.set("mcp:gh:TOKEN", "ghp_secret")
    credentials.set("mcp:docs:header:Authorization", "Bearer abc")
    config = ServerConfig(command="x", env={"TOKEN": "${keyring:mcp:gh:TOKEN}", "HOME_DIR": "${SB_HOME}/x"})
    env = expand_env("gh", config, environ={"SB_HOME": "/home/me"}, credentials=credentials)
    assert env == {"TOKEN": "ghp_secret", "HOME_DIR": "/home/me/x"}
    remote = ServerConfig(url="https://x", headers={"Authorization": "${keyring:mcp:docs:header:Authorization}"})
    assert expand_headers("docs", remote, environ={}, credentials=credentials) == {"Authorization": "Bearer abc"}


def test_default_credentials_read_the_keyring_only_when_needed(memory_keyring: object) -> None:
    Credentials().set("mcp:gh:TOKEN", "from-keyring")
    config = ServerConfig(command="x", env={"TOKEN": "${keyring:mcp:gh:TOKEN}"})
    assert expand_env("gh", config, environ={}) == {"TOKEN": "from-keyring"}


def test_missing_secret_names_the_keyring_entry_and_how_to_set_it() -> None:
    config = ServerConfig(command="x", env={"TOKEN": "${keyring:mcp:gh:TOKEN}"})
    with pytest.raises(ServerStartError) as info:
        expand_env("gh", config, environ={}, credentials=Credentials())
    message = str(info.value)
    assert message.startswith("MCP server 'gh': env.TOKEN: keyring entry 'mcp:gh:TOKEN'")
    assert "keyring set switchboard mcp:gh:TOKEN" in message


def test_unset_variable_fails_at_start_not_at_read() -> None:
    config = ServerConfig(url="https://x", headers={"X-Key": "${SB_TEST_UNSET}"})
    with pytest.raises(ServerStartError, match=r"MCP server 'r': headers\.X-Key: environment variable 'SB_TEST_UNSET'"):
        expand_headers("r", config, environ={})


def test_expanded_header_may_not_contain_a_line_break() -> None:
    config = ServerConfig(url="https://x", headers={"X-Key": "${SB_VALUE}"})
    with pytest.raises(ServerStartError, match="line break"):
        expand_headers("r", config, environ={"SB_VALUE": "a\r\nInjected: yes"})


# -- PATH and commands --------------------------------------------------------------------------


@posix_only
def test_which_uses_the_given_path(tmp_path: Path) -> None:
    tool = make_tool(tmp_path / "custom", "my-mcp-server")
    search = os.pathsep.join([str(tmp_path / "empty"), str(tmp_path / "custom")])
    assert resolve_command("s", "my-mcp-server", search) == str(tool)
    with pytest.raises(ServerStartError) as info:
        resolve_command("s", "my-mcp-server", str(tmp_path / "empty"))
    assert str(info.value) == (
        f"MCP server 's': command 'my-mcp-server' not found on PATH (searched: {tmp_path / 'empty'}). "
        "Install it or give an absolute path in mcp.json"
    )
    assert resolve_command("s", str(tmp_path / "nope" / "srv"), search) == str(tmp_path / "nope" / "srv")


@posix_only
def test_stdio_parameters_resolve_on_the_search_path_and_pass_it_on(tmp_path: Path) -> None:
    tool = make_tool(tmp_path / "bin", "srv")
    config = ServerConfig(command="srv", args=["~/data", "--flag"], env={"TZ": "UTC"})
    environ = {"DROPPED": "1", "HOME": "/home/u", "PATH": "/ignored"}
    params = stdio_parameters(config, name="s", environ=environ, search_path=str(tool.parent))
    assert params.command == str(tool)
    assert params.args == [os.path.expanduser("~/data"), "--flag"]
    assert params.env == {"HOME": "/home/u", "PATH": str(tool.parent), "TZ": "UTC"}


@posix_only
def test_a_path_in_the_server_env_is_searched_and_wins(tmp_path: Path, fixed_login_path: None) -> None:
    tool = make_tool(tmp_path / "own", "srv")
    params = stdio_parameters(ServerConfig(command="srv", env={"PATH": str(tool.parent)}), name="s")
    assert params.command == str(tool)
    assert params.env is not None and params.env["PATH"] == str(tool.parent)


def test_stdio_parameters_use_the_login_shell_path_by_default(fixed_login_path: None) -> None:
    with pytest.raises(ServerStartError) as info:
        stdio_parameters(ServerConfig(command="surely-not-installed-sb"), name="s")
    assert f"(searched: /from/login{os.pathsep}/usr/bin)" in str(info.value)


@pytest.mark.asyncio
async def test_launch_problems_become_a_failed_server_not_an_exception() -> None:
    config = ServerConfig(command="x", env={"TOKEN": "${keyring:mcp:gh:TOKEN}"})
    host = Host({"gh": config}, credentials=Credentials())
    try:
        await host.start()
        status = host.states()["gh"]
    finally:
        await host.aclose()
    assert status.state == "failed"
    assert status.error is not None and "keyring entry 'mcp:gh:TOKEN'" in status.error


# -- the login shell ----------------------------------------------------------------------------


class FakeShell:
    def __init__(self, output: str = "", error: Exception | None = None) -> None:
        self.output, self.error = output, error
        self.calls: list[tuple[list[str], float]] = []

    def __call__(self, argv: list[str], timeout: float) -> str:
        self.calls.append((argv, timeout))
        if self.error is not None:
            raise self.error
        return self.output


def resolver(shell: FakeShell, *, platform: str = "linux", terminal: bool = False, **environ: str) -> LoginShellPath:
    env = {"SHELL": "/bin/zsh", "PATH": "/usr/bin:/opt/app/bin", **environ}
    return LoginShellPath(environ=env, platform=platform, from_terminal=lambda: terminal, runner=shell, timeout=3)


def test_login_shell_path_is_read_once_and_merged() -> None:
    shell = FakeShell("motd noise\n__SWITCHBOARD_PATH__/opt/homebrew/bin:/usr/bin__SWITCHBOARD_PATH__")
    path = resolver(shell, platform="darwin")
    assert path() == "/opt/homebrew/bin:/usr/bin:/opt/app/bin"
    assert path() == "/opt/homebrew/bin:/usr/bin:/opt/app/bin"
    assert len(shell.calls) == 1
    argv, timeout = shell.calls[0]
    assert argv[:2] == ["/bin/zsh", "-lic"] and '"$PATH"' in argv[2] and argv[2].startswith("printf")
    assert timeout == 3


def test_login_shell_is_skipped_outside_a_gui_launch_on_macos_or_linux() -> None:
    shell = FakeShell("__SWITCHBOARD_PATH__/x__SWITCHBOARD_PATH__")
    assert resolver(shell, platform="win32")() == "/usr/bin:/opt/app/bin"
    assert resolver(shell, terminal=True)() == "/usr/bin:/opt/app/bin"
    assert resolver(shell, SHELL="")() == "/usr/bin:/opt/app/bin"
    assert shell.calls == []


@pytest.mark.parametrize(
    "shell",
    [
        FakeShell(error=subprocess.TimeoutExpired(["zsh"], 3)),
        FakeShell(error=FileNotFoundError("no zsh")),
        FakeShell("no markers at all"),
        FakeShell("__SWITCHBOARD_PATH__  __SWITCHBOARD_PATH__"),
    ],
)
def test_login_shell_failures_fall_back_to_the_current_path(shell: FakeShell, caplog: pytest.LogCaptureFixture) -> None:
    assert resolver(shell)() == "/usr/bin:/opt/app/bin"
    assert "using the current PATH" in caplog.text


@posix_only
def test_a_real_login_shell_reports_its_path(tmp_path: Path) -> None:
    path = LoginShellPath(
        environ={"SHELL": "/bin/sh", "PATH": str(tmp_path)}, platform="linux", from_terminal=lambda: False
    )
    entries = path().split(os.pathsep)
    assert entries[-1] == str(tmp_path)
    assert len(entries) > 1


def test_login_shell_path_can_be_injected() -> None:
    set_login_shell_path(lambda: "/injected")
    try:
        assert login_shell_path() == "/injected"
    finally:
        set_login_shell_path(None)


def test_merge_paths_keeps_order_and_drops_duplicates() -> None:
    sep = os.pathsep
    assert merge_paths(sep.join(["/a", "/b", ""]), sep.join(["/b", "/c", "/a"])) == sep.join(["/a", "/b", "/c"])


# -- checking a command before it is saved ----------------------------------------------------------


@posix_only
def test_command_problem_looks_the_command_up_as_a_launch_would(tmp_path: Path) -> None:
    make_tool(tmp_path / "login", "on-login-path")
    make_tool(tmp_path / "own", "on-own-path")
    set_login_shell_path(lambda: str(tmp_path / "login"))
    try:
        assert command_problem("on-login-path") is None
        assert command_problem("on-own-path", {"PATH": str(tmp_path / "own")}) is None  # the server's own PATH
        problem = command_problem("on-own-path")
        assert problem is not None and "'on-own-path' was not found on PATH" in problem
        assert str(tmp_path / "login") in problem and "Install it, or give its full path" in problem
        assert command_problem(str(tmp_path / "login" / "on-login-path")) is None
        missing = command_problem(str(tmp_path / "nowhere" / "tool"))
        assert missing is not None and "does not exist" in missing
        assert "is not a program" in (command_problem(str(tmp_path)) or "")
        assert command_problem("  ") is None  # an empty command is the form's own check
    finally:
        set_login_shell_path(None)
