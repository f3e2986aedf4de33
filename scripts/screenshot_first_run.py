"""The first hour's dialogs from the real app under Xvfb, light and dark: the missing-key banner, the provider
dialog it opens (without a keyring, opened twice), the welcome screen with the DeepSeek options, and Settings'
General and Providers pages.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_first_run.py [light|dark ...]

For each theme: a home with DeepSeek set up and no keyring at all (the null keyring), so the window starts
with the "Enter key" banner; the banner's button opens the provider dialog, which is closed and opened again
from the same button (it opened only once before). Then a fresh home: the welcome screen, with DeepSeek picked
from the preset list by keyboard. Then a home with a working (file-backed, test) keyring: Settings → General
and Providers. Output in docs/screenshots/: key-banner-THEME.png, provider-session-only-THEME.png,
welcome-deepseek-THEME.png, settings-general-THEME.png, settings-providers-THEME.png.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import OUT, App, each_theme, home_with, write_settings

DEEPSEEK = {"base_url": "https://api.deepseek.com", "model": "deepseek-chat", "dialect": "deepseek"}


def banner_and_provider(theme: str, tmp: Path) -> None:
    home = tmp / "nokeyring"
    home_with(home, theme=theme, provider=DEEPSEEK, settings={"context_os": False})
    with App(home, no_keyring=True) as app:
        app.wait_for("enterKeyButton")
        app.settle(1.5)
        app.shot(OUT / f"key-banner-{theme}.png")
        app.click("enterKeyButton")
        app.wait_window("^Model provider$")
        app.key("Escape")  # closed: Qt deletes it
        app.settle()
        app.click("enterKeyButton")  # and the same button opens it again
        app.wait_window("^Model provider$")
        app.wait_for("apiKeyEdit")
        app.settle(1.2)
        app.shot(OUT / f"provider-session-only-{theme}.png")


def welcome(theme: str, tmp: Path) -> None:
    home = tmp / "fresh"
    write_settings(home, theme=theme, provider={})
    (home / "data").mkdir(parents=True, exist_ok=True)
    (home / "data" / "no-tray-noticed").touch()
    with App(home, env={"XDG_CONFIG_HOME": str(tmp / "xdg")}) as app:
        dialog = app.wait_window("^Welcome to Switchboard$")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # the local probe reports within its timeout
            if str(app.ask(do="what", object="detectStatus").get("text", "")).startswith(("Found", "No local")):
                break
            time.sleep(0.25)
        app.click("presetCombo")
        app.settle(0.5)
        app.key("Down", "Return")  # OpenAI → DeepSeek
        app.wait_for("deepseekOptions")
        app.settle(1.2)
        app.shot(OUT / f"welcome-deepseek-{theme}.png", dialog)


def settings_pages(theme: str, tmp: Path) -> None:
    home = tmp / "keyring"
    keyring_file = home_with(
        home,
        theme=theme,
        provider=DEEPSEEK,
        secrets={"api-key:https://api.deepseek.com": "sk-demo-not-a-real-key-000000"},
        settings={"context_os": False},
    )
    with App(home, keyring_file=keyring_file) as app:
        app.key("ctrl+comma")
        settings = app.wait_window("^Settings$")
        app.focus(settings)
        app.settle(1.2)
        app.shot(OUT / f"settings-general-{theme}.png", settings)
        app.key("Down")  # General → Providers
        app.settle(1.2)
        app.shot(OUT / f"settings-providers-{theme}.png", settings)


def shoot(theme: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        banner_and_provider(theme, Path(tmp))
        welcome(theme, Path(tmp))
        settings_pages(theme, Path(tmp))


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
