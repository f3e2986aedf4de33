"""Screenshots of the extension and plugin screens from the real app under Xvfb (light and dark).

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_extensions.py

For each theme: a fresh SWITCHBOARD_HOME (file-backed test keyring) where ``switchboard install`` installed the
test bundle python-probe (packed by the official ``mcpb`` CLI, tests/support/bundles) and ``switchboard plugins``
installed and enabled the example plugin (docs/examples/plugins/notes-plugin). The app is started as the file
manager starts it, ``switchboard FILE.mcpb`` with the node-probe bundle signed by ``mcpb sign --self-signed``:
the install screen opens (shot 1). Escape closes it; View → Servers, the extension selected, shows its strip
with Reconfigure… and Update… (shot 2); Reconfigure… opens its form (shot 3); Settings → Plugins (shot 4).
Output: docs/screenshots/{install-extension,extensions-list,extension-reconfigure,plugins}-{light,dark}.png.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import (
    OUT,
    ROOT,
    app_command,
    app_env,
    app_window,
    each_theme,
    focus,
    grab,
    open_settings_page,
    wait_window,
    write_settings,
    xdotool,
)

PLUGIN = ROOT / "docs" / "examples" / "plugins" / "notes-plugin"
PLUGINS_PAGE, PLUGINS_PAGE_AT = (1100, 820), (150, 40)  # the Settings window's size and place for Plugins
DEEPSEEK = {"base_url": "https://api.deepseek.com", "model": "deepseek-chat", "dialect": "deepseek"}


def plugin_home(tmp: Path, theme: str) -> dict[str, str]:
    """A home (``SWITCHBOARD_HOME``) on DeepSeek with its key in a file-backed keyring; the app's environment."""
    home = tmp / "home"
    write_settings(home, theme=theme, provider=DEEPSEEK, appearance={"font_size": 0}, context_datetime=False,
                   context_os=False)  # fmt: skip
    keyring_file = tmp / "keyring.json"
    keyring_file.write_text(json.dumps({"switchboard\0api-key:https://api.deepseek.com": "sk-demo-000"}))
    return app_env(keyring_file=keyring_file, home=home)


def cli(env: dict[str, str], *args: str) -> None:
    """One ``switchboard`` command line (headless) on the app's home."""
    subprocess.run(app_command(*args), cwd=ROOT, env={**env, "QT_QPA_PLATFORM": "offscreen"}, check=True,
                   capture_output=True)  # fmt: skip


def prepare(tmp: Path, theme: str) -> tuple[dict[str, str], Path]:
    from tests.support.bundles import HERE, pack, sign_self_signed

    env = plugin_home(tmp, theme)
    bundles = tmp / "bundles"
    bundles.mkdir()
    probe = pack(HERE / "python-probe", bundles)
    workspace = tmp / "Projects"
    workspace.mkdir()
    sets = ["--set", "api_key=sk-probe-demo-0000", "--set", f"workspace={workspace}", "--set", "limit=5"]
    cli(env, "install", str(probe), "--yes", *sets)
    cli(env, "plugins", "install", str(PLUGIN))
    cli(env, "plugins", "enable", "notes-plugin")
    signed = sign_self_signed(pack(HERE / "node-probe", bundles), bundles)
    return env, signed


def shoot(theme: str) -> list[Path]:
    shots: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        env, signed = prepare(Path(tmp), theme)
        with app_window(app_command(str(signed)), env) as window:
            dialog = wait_window("^Install Node Probe$", 60)
            time.sleep(1.5)
            shots.append(grab(OUT / f"install-extension-{theme}.png"))
            focus(dialog)
            xdotool("key", "Escape")
            time.sleep(6)  # the extension's server and the plugin's start
            focus(window)
            xdotool("key", "alt+v")
            time.sleep(0.5)
            xdotool("key", "s")  # View → Servers
            time.sleep(1.5)
            focus(wait_window("^Switchboard$"))
            xdotool("mousemove", "1040", "135", "click", "1")  # the python-probe row
            time.sleep(1)
            xdotool("mousemove", "700", "600")
            time.sleep(0.5)
            shots.append(grab(OUT / f"extensions-list-{theme}.png"))
            xdotool("mousemove", "1253", "446", "click", "1")  # Reconfigure…
            form = wait_window("^Reconfigure Python Probe$")
            time.sleep(1)
            shots.append(grab(OUT / f"extension-reconfigure-{theme}.png"))
            focus(form)
            xdotool("key", "Escape")
            time.sleep(0.5)
            open_settings_page(window, "plugins", PLUGINS_PAGE, PLUGINS_PAGE_AT)
            shots.append(grab(OUT / f"plugins-{theme}.png"))
            return shots


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
