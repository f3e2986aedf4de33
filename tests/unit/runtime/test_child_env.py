"""Children (stdio servers, command hooks) get a minimal, stated environment, never all of ours."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app.runtime import secret_scope
from desktop_app.runtime.child_env import minimal_environment
from desktop_app.runtime.hooks.model import HookPayload
from desktop_app.runtime.host import ServerConfig
from desktop_app.runtime.host.host import stdio_parameters

from .hooks.conftest import runner_for

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell prints the environment")


@pytest.fixture(autouse=True)
def clean_reservations() -> Iterator[None]:
    secret_scope.forget_reserved()
    yield
    secret_scope.forget_reserved()


def test_only_the_stated_variables_are_inherited() -> None:
    environ = {
        "PATH": "/bin",
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "TMPDIR": "/tmp/u",
        "OPENAI_API_KEY": "sk-secret-0123456789",
        "AWS_SECRET_ACCESS_KEY": "abc",
        "BASH_FUNC_x%%": "() { evil; }",
    }
    assert minimal_environment(environ, {"TZ": "UTC"}) == {
        "PATH": "/bin",
        "HOME": "/home/u",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "TMPDIR": "/tmp/u",
        "TZ": "UTC",
    }


def test_a_stdio_server_does_not_inherit_the_provider_key(tmp_path: Path) -> None:
    environ = {"PATH": "/bin", "HOME": "/home/u", "MY_PROVIDER_KEY": "sk-secret-0123456789", "GH_TOKEN": "ghp_x"}
    config = ServerConfig(command=sys.executable, env={"DECLARED": "yes"})
    params = stdio_parameters(config, name="s", environ=environ, search_path="/bin")
    assert params.env == {"PATH": "/bin", "HOME": "/home/u", "DECLARED": "yes"}


@posix_only
@pytest.mark.asyncio
async def test_a_command_hook_sees_only_the_minimal_environment_and_its_declared_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_PROVIDER_KEY", "sk-secret-0123456789")
    monkeypatch.setenv("HOOK_TEAM", "blue")
    monkeypatch.setenv("PASSED_TOKEN", "served-bearer-token")
    secret_scope.reserve(name="PASSED_TOKEN")
    hook = {"command": "env >&2", "allowedEnvVars": ["HOOK_TEAM", "PASSED_TOKEN"]}
    runner = runner_for({"Stop": [hook]}, cwd=tmp_path)
    report = await runner.run("Stop", HookPayload(event="Stop"))
    [outcome] = report.outcomes
    names = {line.split("=", 1)[0] for line in outcome.stderr.splitlines() if "=" in line}
    assert "HOOK_TEAM" in names and "SWITCHBOARD_HOOK_EVENT" in names and "PATH" in names
    assert "MY_PROVIDER_KEY" not in names
    assert "PASSED_TOKEN" not in names  # declared, but it holds the app's own token
    assert "sk-secret" not in outcome.stderr
