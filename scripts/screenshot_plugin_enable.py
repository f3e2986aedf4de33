"""Screenshots of Settings → Plugins → Enable… for the example plugin, from the real app under Xvfb (light and dark).

Run it as ``xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_plugin_enable.py``. A
throwaway home gets the example plugin (docs/examples/plugins/notes-plugin) installed, disabled, with
``switchboard plugins install``; the app is started on it, Settings → Plugins opened with the keyboard and
Enable… clicked: the dialog lists what the plugin adds, its agent with the tools that are not available here.
Output: docs/screenshots/plugin-enable-{light,dark}.png (Settings → Plugins itself: screenshot_extensions.py).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import (
    OUT,
    app_command,
    app_window,
    each_theme,
    grab,
    open_settings_page,
    place,
    wait_window,
    xdotool,
)
from scripts.screenshot_extensions import PLUGIN, PLUGINS_PAGE, PLUGINS_PAGE_AT, cli, plugin_home


def shoot(theme: str) -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        env = plugin_home(Path(tmp), theme)
        cli(env, "plugins", "install", str(PLUGIN))  # installed, disabled
        with app_window(app_command(), env) as window:
            time.sleep(2)
            open_settings_page(window, "plugins", PLUGINS_PAGE, PLUGINS_PAGE_AT)
            xdotool("mousemove", "534", "321", "click", "1")  # Enable…
            dialog = wait_window("^Enable notes-plugin$")
            place(dialog, (760, 640), (320, 120))
            time.sleep(1.5)
            return grab(OUT / f"plugin-enable-{theme}.png")


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
