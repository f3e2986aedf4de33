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
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "screenshots"
PLUGIN = ROOT / "docs" / "examples" / "plugins" / "notes-plugin"


def xdotool(*args: str) -> str:
    return subprocess.run(["xdotool", *args], capture_output=True, text=True, check=False).stdout.strip()


def wait_window(name: str, timeout_s: float = 30.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = xdotool("search", "--onlyvisible", "--name", name)
        if found:
            return found.splitlines()[-1]
        time.sleep(0.25)
    raise SystemExit(f"no window named {name!r} appeared")


def shot(name: str) -> Path:
    path = OUT / name
    subprocess.run(["import", "-window", "root", str(path)], check=True)
    return path


def prepare(tmp: Path, theme: str) -> tuple[dict[str, str], Path]:
    from tests.support.bundles import HERE, pack, sign_self_signed

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
    bundles = tmp / "bundles"
    bundles.mkdir()
    probe = pack(HERE / "python-probe", bundles)
    workspace = tmp / "Projects"
    workspace.mkdir()
    cli = [sys.executable, "-m", "desktop_app"]
    sets = ["--set", "api_key=sk-probe-demo-0000", "--set", f"workspace={workspace}", "--set", "limit=5"]
    for command in (
        [*cli, "install", str(probe), "--yes", *sets],
        [*cli, "plugins", "install", str(PLUGIN)],
        [*cli, "plugins", "enable", "notes-plugin"],
    ):
        subprocess.run(command, cwd=ROOT, env={**env, "QT_QPA_PLATFORM": "offscreen"}, check=True, capture_output=True)
    signed = sign_self_signed(pack(HERE / "node-probe", bundles), bundles)
    return env, signed


def plugins_page_index() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from desktop_app.ui.settings.registry import registered_pages

    return [page.key for page in registered_pages()].index("plugins")


def shoot(theme: str, page_index: int) -> list[Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        env, signed = prepare(Path(tmp), theme)
        app = subprocess.Popen([sys.executable, "-m", "desktop_app", str(signed)], cwd=ROOT, env=env)
        try:
            window = wait_window("^Switchboard$")
            xdotool("windowsize", window, "1400", "900")
            xdotool("windowmove", window, "0", "0")
            dialog = wait_window("^Install Node Probe$", 60)
            time.sleep(1.5)
            shots.append(shot(f"install-extension-{theme}.png"))
            xdotool("windowfocus", "--sync", dialog)
            xdotool("key", "Escape")
            time.sleep(6)  # the extension's server and the plugin's start
            xdotool("windowfocus", "--sync", window)
            xdotool("key", "alt+v")
            time.sleep(0.5)
            xdotool("key", "s")  # View → Servers
            time.sleep(1.5)
            found = xdotool("search", "--onlyvisible", "--name", "^Switchboard$")
            xdotool("windowfocus", "--sync", found.splitlines()[-1])
            xdotool("mousemove", "1040", "135", "click", "1")  # the python-probe row
            time.sleep(1)
            xdotool("mousemove", "700", "600")
            time.sleep(0.5)
            shots.append(shot(f"extensions-list-{theme}.png"))
            xdotool("mousemove", "1253", "446", "click", "1")  # Reconfigure…
            form = wait_window("^Reconfigure Python Probe$")
            time.sleep(1)
            shots.append(shot(f"extension-reconfigure-{theme}.png"))
            xdotool("windowfocus", "--sync", form)
            xdotool("key", "Escape")
            time.sleep(0.5)
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
            shots.append(shot(f"plugins-{theme}.png"))
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
