"""Screenshots of Settings → Plugins → Enable… for the example plugin, from the real app under Xvfb (light and dark).

Run it as ``xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_plugin_enable.py``. A
throwaway home gets the example plugin (docs/examples/plugins/notes-plugin) installed, disabled, with
``switchboard plugins install``; the app is started on it, Settings → Plugins opened with the keyboard and
Enable… clicked: the dialog lists what the plugin adds, its agent with the tools that are not available here.
Output: docs/screenshots/plugin-enable-{light,dark}.png (Settings → Plugins itself: screenshot_extensions.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from screenshot_extensions import OUT, PLUGIN, plugins_page_index, shot, wait_window, xdotool  # noqa: E402


def prepare(tmp: Path, theme: str) -> dict[str, str]:
    home = tmp / "home"
    (home / "config").mkdir(parents=True)
    settings = {
        "provider": {"base_url": "https://api.deepseek.com", "model": "deepseek-chat", "dialect": "deepseek"},
        "appearance": {"theme": theme, "font_size": 0},
        "context_datetime": False,
        "context_os": False,
    }
    (home / "config" / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    keyring_file = tmp / "keyring.json"
    keyring_file.write_text(json.dumps({"switchboard\0api-key:https://api.deepseek.com": "sk-demo-000"}))
    env = {
        **os.environ,
        "SWITCHBOARD_HOME": str(home),
        "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring",
        "SWITCHBOARD_TEST_KEYRING_FILE": str(keyring_file),
        "PYTHONPATH": str(ROOT),
    }
    env.pop("QT_QPA_PLATFORM", None)
    command = [sys.executable, "-m", "desktop_app", "plugins", "install", str(PLUGIN)]
    subprocess.run(command, cwd=ROOT, env={**env, "QT_QPA_PLATFORM": "offscreen"}, check=True, capture_output=True)
    return env


def shoot(theme: str, page_index: int) -> list[Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = prepare(Path(tmp), theme)
        app = subprocess.Popen([sys.executable, "-m", "desktop_app"], cwd=ROOT, env=env)
        try:
            window = wait_window("^Switchboard$")
            xdotool("windowsize", window, "1400", "900")
            xdotool("windowmove", window, "0", "0")
            time.sleep(2)
            xdotool("windowfocus", "--sync", window)
            xdotool("key", "ctrl+comma")
            settings = wait_window("^Settings$")
            xdotool("windowsize", settings, "1100", "820")
            xdotool("windowmove", settings, "150", "40")
            xdotool("windowfocus", "--sync", settings)
            time.sleep(0.5)
            xdotool("key", "Home")
            for _ in range(page_index):
                xdotool("key", "Down")
            time.sleep(1.5)
            xdotool("mousemove", "534", "321", "click", "1")  # Enable…
            dialog = wait_window("^Enable notes-plugin$")
            xdotool("windowsize", dialog, "760", "640")
            xdotool("windowmove", dialog, "320", "120")
            time.sleep(1.5)
            shots.append(shot(f"plugin-enable-{theme}.png"))
            return shots
        finally:
            app.terminate()
            try:
                app.wait(10)
            except subprocess.TimeoutExpired:
                app.kill()


def main() -> int:
    index = plugins_page_index()
    for theme in sys.argv[1:] or ("light", "dark"):
        for path in shoot(theme, index):
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
