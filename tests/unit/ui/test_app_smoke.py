"""``python -m desktop_app.app --smoke-test``: the window paints, the startup line prints, exit 0."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.integration
def test_smoke_test_paints_and_exits_zero(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SWITCHBOARD_HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "desktop_app.app", "--smoke-test"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    match = re.search(r"^startup: (\d+\.\d+) s to first paint$", proc.stdout, re.M)
    assert match, proc.stdout
    assert float(match.group(1)) < 10
    assert "runtime: ready" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_mcp_is_not_imported_before_the_window_exists():
    code = (
        "import sys, desktop_app.app, desktop_app.ui.window.main_window, desktop_app.ui.chat.view;"
        "bad = [m for m in ('mcp', 'desktop_app.runtime.service', 'desktop_app.runtime.events', 'pydantic',"
        " 'markdown_it', 'importlib.metadata', 'jsonschema', 'asyncio', 'qasync', 'desktop_app.ui.servers.panel',"
        " 'desktop_app.ui.tools.panel', 'desktop_app.ui.servers.requests', 'desktop_app.ui.dialogs.about')"
        " if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.integration
def test_the_window_is_painted_before_asyncio_and_the_hidden_docks_load(tmp_path):
    """The real start-up, with ``-X importtime`` on the same pipe as stdout: the ``startup:`` line comes
    before asyncio, qasync, the Servers dock's module and the chat's message blocks are imported."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SWITCHBOARD_HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "desktop_app.app", "--smoke-test"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    lines = proc.stdout.splitlines()
    painted = next(i for i, line in enumerate(lines) if line.startswith("startup:"))
    imported = {line.rsplit("|", 1)[1].strip(): i for i, line in enumerate(lines) if line.startswith("import time:")}
    for module in (
        "asyncio",
        "qasync",
        "desktop_app.ui.servers.panel",
        "desktop_app.ui.tools.panel",
        "desktop_app.log",
    ):
        assert imported[module] > painted, f"{module} was imported before the first paint"
    # An empty chat shows no message, tool card or Markdown: their modules load with the first of them (or
    # after the first paint), not on its path (~10 ms of the first paint, docs/performance.md).
    # Nor on the way to ready: the compaction UI and the workflow steps import them where they make one.
    ready = next(i for i, line in enumerate(lines) if line.startswith("runtime: ready"))
    for module in ("desktop_app.ui.chat.blocks", "desktop_app.ui.chat.markdown_view", "desktop_app.ui.chat.tool_card"):
        assert imported.get(module, len(lines)) > painted, f"{module} was imported before the first paint"
        assert imported.get(module, len(lines)) > ready, f"{module} was imported before 'runtime: ready'"
    # What only an error, a tool card or a listed conversation needs (~4 ms, docs/performance.md): the runtime's
    # error tree with json and the redaction's patterns, datetime.
    for module in ("desktop_app.runtime.errors", "desktop_app.runtime.redaction", "json", "datetime"):
        assert imported.get(module, len(lines)) > painted, f"{module} was imported before the first paint"
    # The hidden Servers and Tools docks, the find bar, the request cards and the Help menu are built right after
    # ready (issue 27: ~50 ms of imports, widgets and polish),
    # the first run's welcome screen opens then, and the keyring loads with its discovery, started then.
    for module in (
        "desktop_app.ui.servers.panel",
        "desktop_app.ui.tools.panel",
        "desktop_app.ui.chat.find",
        "desktop_app.ui.dialogs.about",
        "desktop_app.ui.servers.requests",
        "desktop_app.ui.dialogs.welcome",
        "keyring",
        "desktop_app.runtime.plugins",  # no plugin is enabled in a fresh home: the package is not needed
        "_ssl",  # asyncio loads without ssl (desktop_app/lazy_ssl.py): OpenSSL comes with the first TLS client
        "desktop_app.runtime.apps.meta",  # MCP Apps' _meta.ui: read with the first tool list, not the host's import
        # What a run needs beyond ready (the first keystroke loads it, Runtime.prepare_runs), and what is made
        # on first use: the run loop, the compactor, the hooks' runner (built then) and payloads, the workflows'
        # runner and records, the bundles' archive reader.
        "desktop_app.runtime.events.protocol",  # the ~40 event classes: made with the first event's
        "desktop_app.runtime.run.loop",
        "desktop_app.runtime.compaction.compactor",
        "desktop_app.runtime.compaction.budget",
        "desktop_app.runtime.hooks.runner",
        "desktop_app.runtime.hooks.model",
        "desktop_app.runtime.workflows.runner",
        "desktop_app.runtime.workflows.records",
        "desktop_app.runtime.extensions.archive",
    ):
        assert imported.get(module, len(lines)) > ready, f"{module} was imported before 'runtime: ready'"


@pytest.mark.integration
def test_no_garbage_collection_pass_runs_before_the_first_paint(tmp_path):
    """The real entry point (``switchboard``): the collector is off from the window's imports to the first paint;
    its passes over every module, class and enum made so far cost ~8 ms of the first paint (docs/performance.md).
    It is on again once ``main()`` returns."""
    code = (
        "import builtins, gc, sys\n"
        "passes, started = [], []\n"
        "gc.callbacks.append(lambda phase, info: started and phase == 'start' and passes.append(info['generation']))\n"
        "real_print = builtins.print\n"
        "def print_(*args, **kwargs):\n"
        "    if args and str(args[0]).startswith('startup:'):\n"
        "        real_print(f'passes before the first paint: {passes}', flush=True)\n"
        "    real_print(*args, **kwargs)\n"
        "builtins.print = print_\n"
        "from desktop_app.__main__ import main\n"
        "gc.collect()\n"  # young generation empty: the few objects main() makes before its gc.disable() start none
        "started.append(True)\n"
        "code = main(['--smoke-test'])\n"
        "real_print(f'collector on after main: {gc.isenabled()}', flush=True)\n"
        "sys.exit(code)\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SWITCHBOARD_HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "passes before the first paint: []" in proc.stdout, proc.stdout
    assert "collector on after main: True" in proc.stdout, proc.stdout


@pytest.mark.integration
def test_no_python_wrapper_of_the_style_before_ready(tmp_path):
    """The real entry point: PySide makes the ``QStyle`` type (~300 enums, ~4 ms) the first time Python sees the
    style, or an object of a class it does not know (an application-wide event filter does, for Qt's animation
    timer). Nothing on the way to ``runtime: ready`` does: the first-paint watch filters the window alone, the
    status line draws its text with its palette, the composer's focus ring is re-polished a turn later, and
    Fusion comes from the command line (docs/performance.md)."""
    code = (
        "import builtins, sys\n"
        "import PySide6.QtWidgets as widgets\n"
        "real_print = builtins.print\n"
        "def print_(*args, **kwargs):\n"
        "    line = str(args[0]) if args else ''\n"
        "    if line.startswith(('startup:', 'runtime: ready')):\n"
        "        real_print(f'{line.split()[0]} QStyle made: {\"QStyle\" in vars(widgets)}', flush=True)\n"
        "    real_print(*args, **kwargs)\n"
        "builtins.print = print_\n"
        "from desktop_app.__main__ import main\n"
        "code = main(['--smoke-test'])\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication.instance()\n"
        "app.setStyleSheet('')\n"  # the style-sheet style goes: the style under it is left
        "real_print('style:', app.style().name(), flush=True)\n"
        "sys.exit(code)\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SWITCHBOARD_HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "startup: QStyle made: False" in proc.stdout, proc.stdout
    assert "runtime: QStyle made: False" in proc.stdout, proc.stdout
    assert "style: fusion" in proc.stdout.lower(), proc.stdout  # Fusion is in force all the same


def test_the_first_keystroke_prepares_the_first_run(qtbot, qloop, fake_runtime):
    """An untouched window never imports what only a run needs; typing starts preparing it (once)."""
    from desktop_app.ui.window.main_window import MainWindow

    class Host:
        prepared = 0

        async def prepare(self) -> None:
            Host.prepared += 1

    runs: list[str] = []

    async def prepare_runs() -> None:  # the run loop, the compactor and the hooks (Runtime.prepare_runs)
        runs.append("prepared")

    fake_runtime.host = Host()
    fake_runtime.prepare_runs = prepare_runs
    window = MainWindow()
    qtbot.addWidget(window)
    window.attach_runtime(fake_runtime)
    assert (Host.prepared, runs) == (0, [])
    window.composer.edit.setPlainText("h")  # what a keystroke does
    qtbot.waitUntil(lambda: (Host.prepared, runs, window.tasks.pending) == (1, ["prepared"], 0), timeout=5000)
    window.composer.edit.setPlainText("hi")  # the next keystroke starts nothing more
    assert window.tasks.pending == 0 and (Host.prepared, runs) == (1, ["prepared"])
