"""A plugin knows its own folder and a project hook its project (issue 22 item 3): ``CLAUDE_PLUGIN_ROOT`` and
``WHALE_PLUGIN_ROOT`` are set for a plugin's hooks and stdio servers and substituted where written as
``${…}``; ``CLAUDE_PROJECT_DIR`` is set for hooks and substituted in a project's ``.claude/settings.json`` hooks
(so trust covers the script it names). Real processes: each hook writes the variables it got to a file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from desktop_app.runtime.hooks.model import HookPayload
from desktop_app.runtime.hooks.sources import build_runner
from desktop_app.runtime.plugins import manage

DUMP = "import json, os, sys; json.dump({k: os.environ.get(k) for k in sys.argv[2:]}, open(sys.argv[1], 'w'))"
NAMES = "CLAUDE_PLUGIN_ROOT WHALE_PLUGIN_ROOT CLAUDE_PROJECT_DIR"


def read(path: Path) -> dict[str, str | None]:
    return json.loads(path.read_text())


@pytest.fixture
def places(tmp_path: Path) -> manage.Places:
    return manage.Places(tmp_path / "data", tmp_path / "settings.json", tmp_path / "mcp.json")


def whale_plugin(folder: Path, out: Path) -> Path:
    (folder / "hooks").mkdir(parents=True)
    (folder / "dump.py").write_text(DUMP)
    (folder / "whale-plugin.toml").write_text('id = "roots"\nversion = "1"\n')
    hook = {"command": f"{sys.executable} ${{WHALE_PLUGIN_ROOT}}/dump.py {out} {NAMES}"}
    (folder / "hooks" / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [hook]}}))
    server = {"command": sys.executable, "args": ["${WHALE_PLUGIN_ROOT}/server.py"], "env": {"MODE": "x"}}
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {"srv": server}}))
    return folder


@pytest.mark.asyncio
async def test_a_plugins_hooks_and_servers_know_the_plugins_folder(tmp_path: Path, places: manage.Places) -> None:
    out = tmp_path / "env.json"
    manage.install(whale_plugin(tmp_path / "src", out), places)
    manage.enable("roots", places)
    root = str(places.files("roots"))
    server = json.loads(places.mcp_file.read_text())["mcpServers"]["roots.srv"]
    assert server["args"] == [f"{root}/server.py"]  # ${WHALE_PLUGIN_ROOT} substituted like ${CLAUDE_PLUGIN_ROOT}
    assert server["env"] == {"CLAUDE_PLUGIN_ROOT": root, "WHALE_PLUGIN_ROOT": root, "MODE": "x"}

    runner = build_runner(
        settings_hooks=None, settings_path=None, mcp_config=None, data_dir=places.data_dir, cwd=tmp_path
    )
    [reviewed] = runner.review()
    assert f"{root}/dump.py" in reviewed.entry.body  # the command names the real script
    runner.trust_hook(reviewed.entry.key)
    report = await runner.run("Stop", HookPayload("Stop", session_id="s"))
    assert report.ran == 1 and not report.failures
    assert read(out) == {"CLAUDE_PLUGIN_ROOT": root, "WHALE_PLUGIN_ROOT": root, "CLAUDE_PROJECT_DIR": str(tmp_path)}


@pytest.mark.asyncio
async def test_a_project_claude_settings_hook_gets_its_project_folder(tmp_path: Path) -> None:
    project, out = tmp_path / "project", tmp_path / "env.json"
    (project / ".claude" / "hooks").mkdir(parents=True)
    (project / ".claude" / "hooks" / "dump.py").write_text(DUMP)
    command = f'{sys.executable} "$CLAUDE_PROJECT_DIR"/.claude/hooks/dump.py {out} {NAMES}'
    settings = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    runner = build_runner(
        settings_hooks=None, settings_path=None, mcp_config=None, project_dirs=[project], data_dir=tmp_path / "d"
    )
    [reviewed] = runner.review()
    assert reviewed.state == "untrusted" and reviewed.entry.source.kind == "project"  # never runs before trusted
    assert reviewed.entry.body == f'{sys.executable} "{project}"/.claude/hooks/dump.py {out} {NAMES}'
    runner.trust_hook(reviewed.entry.key)
    report = await runner.run("Stop", HookPayload("Stop", session_id="s"))
    assert report.ran == 1 and not report.failures
    assert read(out) == {"CLAUDE_PLUGIN_ROOT": None, "WHALE_PLUGIN_ROOT": None, "CLAUDE_PROJECT_DIR": str(project)}
    (project / ".claude" / "hooks" / "dump.py").write_text(DUMP + "\n# changed\n")
    assert [item.state for item in runner.review()] == ["modified"]  # trust covers the script it names
