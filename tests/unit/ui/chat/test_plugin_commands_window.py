"""In the real window (MainWindow + Runtime + Host, offscreen): a plugin command's ``!`…` `` context command is
shown for approval with its exact text before it runs, runs only when approved (its output in its place) and
not when refused; and the plugin page shows the compatibility report, one line per part (issue 22 item 6 and
the plugin compatibility report).

The command follows Claude Code's slash-commands reference (``!`…` `` context lines, ``$ARGUMENTS``); the
plugin for the page follows Whale's plugins guide (``commands/commands.toml``, ``rules/``, ``hooks.toml``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel, QMessageBox

from desktop_app.runtime.host import Host
from desktop_app.runtime.plugins.prompts import SERVER_NAME, PluginPrompt, make_prompts_server
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.window.main_window import MainWindow
from tests.support import claude_plugins as cp
from tests.support.fakes import FakeProvider


def _await(qtbot: Any, loop: Any, coro: Any, timeout: int = 10_000) -> Any:
    task = loop.create_task(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def window_with_command(qtbot: Any, qloop: Any, marker: Path) -> tuple[MainWindow, Runtime]:
    prompt = PluginPrompt("ctx", "status", "Status", f"- Marker: !`touch {marker} && echo made`\n\nOn $ARGUMENTS.")
    host = Host(call_timeout=30)
    host.register_builtin(SERVER_NAME, lambda: make_prompts_server([prompt]))
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(settings=settings, host=host, provider_factory=lambda _s, _k: FakeProvider())
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_host(host)
    win.show()
    qtbot.waitExposed(win)
    _await(qtbot, qloop, host.ensure_connected(SERVER_NAME))
    return win, runtime


@pytest.mark.parametrize("approve", [True, False])
def test_a_context_command_is_approved_in_the_window_before_it_runs(
    qtbot: Any, qloop: Any, tmp_path: Path, approve: bool
) -> None:
    marker = tmp_path / "ran"
    win, runtime = window_with_command(qtbot, qloop, marker)
    slash = win.slash
    assert slash is not None
    try:
        qtbot.waitUntil(lambda: len(slash.catalog.entries()) == 1)
        slash.choose(slash.catalog.entries()[0])
        form = slash.form
        assert form is not None
        form.edits["arguments"].setText("the build")
        form.insert_button.click()
        qtbot.waitUntil(lambda: slash.approval is not None and slash.approval.isVisible())
        box = slash.approval
        assert isinstance(box, QMessageBox)
        assert f"<code>touch {marker} &amp;&amp; echo made</code>" in box.text()
        assert not marker.exists()  # shown first, not run
        name = "runContextCommands" if approve else "skipContextCommands"
        [button] = [b for b in box.buttons() if b.objectName() == name]
        button.click()
        qtbot.waitUntil(lambda: win.composer.text.endswith("On the build."))
        if approve:
            assert marker.exists() and win.composer.text.startswith("- Marker: made\n")
        else:
            assert not marker.exists()
            assert "was not run: denied in the window]" in win.composer.text
        assert "!`" not in win.composer.text
    finally:
        _await(qtbot, qloop, runtime.aclose())


def test_the_plugin_page_shows_the_compatibility_report(qtbot: Any, qloop: Any, tmp_path: Path) -> None:
    from desktop_app.assembly import assemble
    from desktop_app.paths import app_paths
    from desktop_app.runtime.plugins import manage
    from desktop_app.ui.settings.plugins_page import PluginsPage

    folder = tmp_path / "my-plugin"
    cp.write(folder / "whale-plugin.toml", 'id = "my-plugin"\nname = "My Plugin"\nversion = "0.1.0"\n')
    cp.write(folder / "commands" / "commands.toml", '[[commands]]\nname = "ping"\ncommand = "echo pong"\n')
    cp.write(folder / "rules" / "convention.md", "This session uses the my-plugin plugin.\n")
    cp.write(folder / "hooks.toml", '[[hooks.SessionStart]]\ncommand = "echo started"\ntimeout = 5\n')
    paths = app_paths().ensure()
    manage.install(folder, manage.Places(paths.data_dir, paths.settings_file, paths.mcp_config_file))
    built = assemble(paths, strict=True, persist=False)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(built.runtime)
    win.attach_host(built.host, credentials=built.runtime.credentials, mcp_config=paths.mcp_config_file)
    try:
        settings = win.open_settings_window("plugins")
        page = settings.findChild(PluginsPage, "pluginsPage")
        assert page is not None
        page.refresh(select="my-plugin")
        details = page.details
        assert isinstance(details, QLabel)
        html = details.text()
        assert "Compatibility (one line per part)" in html
        assert "[translated]</span> <b>rules/convention.md</b> — in each new conversation&#x27;s system prompt" in html
        assert "[translated]</span> <b>command my-plugin:ping</b> — `echo pong` shown for approval" in html
        assert "[works]</span> <b>hooks SessionStart</b>" in html
    finally:
        _await(qtbot, qloop, built.aclose())


def test_an_enabled_plugins_context_command_gets_its_folder_in_the_window(
    qtbot: Any, qloop: Any, tmp_path: Path
) -> None:
    from desktop_app.paths import app_paths
    from desktop_app.runtime.plugins import manage
    from desktop_app.runtime.plugins.prompts import enabled_prompts
    from desktop_app.runtime.settings import load_settings

    folder = tmp_path / "rooted"
    cp.manifest(folder, "rooted")
    cp.write(folder / "commands" / "where.md", "---\ndescription: Where\n---\nRoot: !`echo $CLAUDE_PLUGIN_ROOT`\n")
    paths = app_paths().ensure()
    places = manage.Places(paths.data_dir, paths.settings_file, paths.mcp_config_file)
    manage.install(folder, places)
    manage.enable("rooted", places)
    prompts = enabled_prompts(paths.data_dir, load_settings(paths.settings_file).plugins)
    host = Host(call_timeout=30)
    host.register_builtin(SERVER_NAME, lambda: make_prompts_server(prompts))
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(settings=settings, host=host, provider_factory=lambda _s, _k: FakeProvider())
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_host(host)
    win.show()
    _await(qtbot, qloop, host.ensure_connected(SERVER_NAME))
    slash = win.slash
    assert slash is not None
    try:
        qtbot.waitUntil(lambda: len(slash.catalog.entries()) == 1)
        slash.choose(slash.catalog.entries()[0])
        slash.form.insert_button.click()
        qtbot.waitUntil(lambda: slash.approval is not None and slash.approval.isVisible())
        [run] = [b for b in slash.approval.buttons() if b.objectName() == "runContextCommands"]
        run.click()
        qtbot.waitUntil(lambda: win.composer.text.startswith("Root: "))
        assert win.composer.text == f"Root: {places.files('rooted')}"
    finally:
        _await(qtbot, qloop, runtime.aclose())
