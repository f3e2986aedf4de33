"""Trust by content hash: sources trusted by default, untrusted sources, modified, disabled, revoked."""

from __future__ import annotations

import json
from pathlib import Path

from desktop_app.runtime.hooks.sources import build_runner


def write(path: Path, hooks: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}))


def test_states_across_sources_and_changes(tmp_path: Path) -> None:
    config, data, project = tmp_path / "config", tmp_path / "data", tmp_path / "project"
    mcp = config / "mcp.json"
    write(mcp, {"tools/call?direction=response": ["pii/redact"]})
    write(project / ".switchboard" / "hooks.json", {"PreToolUse": [{"command": "guard.sh"}]})
    write(data / "plugins" / "lint" / "hooks" / "hooks.json", {"PostToolUse": [{"type": "http", "url": "http://x"}]})
    write(config / "imported-hooks" / "whale.json", {"Stop": [{"type": "mcp", "target": "notes/save"}]})

    def runner():  # a fresh runner each time: trust is read back from the file, like after a restart
        return build_runner(
            settings_hooks={"Stop": [{"command": "notify-send done"}]},
            settings_path=None,
            mcp_config=mcp,
            project_dirs=[project],
            config_dir=config,
            data_dir=data,
            cwd=project,
        )

    reviewed = runner().review()
    by_kind = {item.entry.source.kind: item for item in reviewed}
    assert {k: v.state for k, v in by_kind.items()} == {
        "user": "trusted",
        "mcp-config": "trusted",
        "project": "untrusted",
        "plugin": "untrusted",
        "imported": "untrusted",
    }
    assert by_kind["project"].entry.body == "guard.sh" and by_kind["plugin"].entry.body == "http://x"
    assert by_kind["imported"].entry.body == "notes/save" and by_kind["mcp-config"].entry.body == "pii/redact"
    assert runner().active_hooks("PreToolUse") == []

    runner().trust_hook(by_kind["project"].entry.key)
    assert [h.definition.command for h in runner().active_hooks("PreToolUse")] == ["guard.sh"]

    write(project / ".switchboard" / "hooks.json", {"PreToolUse": [{"command": "guard.sh --lenient"}]})
    again = runner()
    [project_hook] = [i for i in again.review() if i.entry.source.kind == "project"]
    assert project_hook.state == "modified" and again.active_hooks("PreToolUse") == []

    again.trust_hook(project_hook.entry.key)
    again.set_enabled(project_hook.entry.key, False)
    assert runner().active_hooks("PreToolUse") == []
    assert [i.state for i in runner().review() if i.entry.source.kind == "project"] == ["disabled"]
    runner().set_enabled(project_hook.entry.key, True)
    runner().revoke_hook(project_hook.entry.key)
    assert [i.state for i in runner().review() if i.entry.source.kind == "project"] == ["untrusted"]

    user_key = by_kind["user"].entry.key  # the user's own hooks can be disabled too
    runner().set_enabled(user_key, False)
    assert runner().active_hooks("Stop") == []


def test_untrusted_message_hook_targets_are_left_out(tmp_path: Path) -> None:
    project = tmp_path / "p"
    write(project / ".switchboard" / "hooks.json", {"tools/call": ["spy/copy"]})
    runner = build_runner(
        settings_hooks={"tools/call": ["pii/redact"]},
        settings_path=None,
        mcp_config=None,
        project_dirs=[project],
        data_dir=tmp_path / "d",
    )
    assert [str(t) for m in runner.mappings_for("any") for t in m.targets] == ["pii/redact"]


def test_broken_hook_files_are_reported_with_their_path(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".switchboard").mkdir(parents=True)
    (project / ".switchboard" / "hooks.json").write_text('{"hooks": {"PreToolUse": [{"type": "command"}]')
    runner = build_runner(
        settings_hooks={"PreToolUse": [{"type": "http"}], "OnMars": []},
        settings_path=None,
        mcp_config=None,
        project_dirs=[project],
    )
    problems = runner.problems
    assert any("hooks.PreToolUse[0]: a http hook needs 'url'" in p for p in problems)
    assert any("hooks.OnMars: unknown hook event" in p for p in problems)
    assert any(str(project / ".switchboard" / "hooks.json") in p and "line 1" in p for p in problems)


def test_imported_server_hooks_start_untrusted_and_never_reach_mcp_json(tmp_path: Path) -> None:
    from desktop_app.runtime.credentials import Credentials
    from desktop_app.runtime.host.importers import import_config

    source = tmp_path / "mcp-servers.yaml"  # a nanobot server map with a per-server message hook
    source.write_text(
        'crm:\n  command: crm-server\n  hooks:\n    tools/call?direction=response: ["filters/forward"]\n',
        encoding="utf-8",
    )
    config = tmp_path / "config"
    target = config / "mcp.json"
    report = import_config(source, target, Credentials())
    assert report.imported == ["crm"]
    assert "hooks" not in json.loads(target.read_text())["mcpServers"]["crm"]
    assert any("stay off until you trust them" in note for note in report.notes)
    runner = build_runner(settings_hooks={}, settings_path=None, mcp_config=target, config_dir=config)
    [item] = runner.review()
    assert (item.entry.source.kind, item.state, item.entry.body, item.entry.scope) == (
        "imported",
        "untrusted",
        "filters/forward",
        "crm",
    )
    assert runner.mappings_for("crm") == []
