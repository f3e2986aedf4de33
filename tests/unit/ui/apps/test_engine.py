"""Loading Qt WebEngine for MCP App views (issue 26): Chromium's flags (``--no-sandbox`` only as root, no GPU
offscreen, the user's own kept), and an installation without WebEngine (the installers) shows no views and
does not advertise MCP Apps to servers."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import Settings
from desktop_app.ui.apps import engine
from desktop_app.ui.apps.controller import attach_apps
from desktop_app.ui.window.main_window import MainWindow


def test_chromium_flags() -> None:
    assert engine.chromium_flags({}, root=False, offscreen=False) == ""
    assert engine.chromium_flags({}, root=True, offscreen=True) == "--no-sandbox --disable-gpu"
    kept = {"QTWEBENGINE_CHROMIUM_FLAGS": "--lang=de --no-sandbox"}
    assert engine.chromium_flags(kept, root=True, offscreen=False) == "--lang=de --no-sandbox"


def test_without_webengine_no_view_is_shown_or_advertised(
    qtbot: Any, qloop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert engine.available()  # this venv has pyside6-addons
    monkeypatch.setattr(engine, "available", lambda: False)
    host = Host({})
    runtime = Runtime(settings=Settings(), host=host)
    window = MainWindow()
    qtbot.addWidget(window)
    window.attach_runtime(runtime)
    apps = attach_apps(window, runtime, host)
    assert apps is not None
    assert not apps.allowed("probe") and not host.client_features.apps_enabled("probe")
    monkeypatch.setattr(engine, "available", lambda: True)
    with_engine = attach_apps(window, runtime, host)
    assert with_engine is not None and with_engine.allowed("probe") and host.client_features.apps_enabled("probe")
    apps.close()
    with_engine.close()
