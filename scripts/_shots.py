"""The screenshot scripts' one Xvfb/launch helper: the real app in its own process, driven with real X input.

``App(home)`` starts the real app (``desktop_app.__main__:main``, what ``.venv/bin/switchboard`` runs) with
``--home HOME`` through ``scripts/_app_launcher.py``, which only adds a line protocol on stdin so the script
can ask *where* a widget is (its centre on the screen, by objectName) and *what* it shows; every click and key
is a real X event sent with ``xdotool``. The screen is taken with ImageMagick's ``import -window root``.

    with App(home) as app:               # waits for the window and for "runtime: ready"
        app.type("Hello")
        app.key("Return")
        app.wait_for("approveButton")    # visible, on screen
        app.click("approveButton")
        app.shot(OUT / "x.png")

Run a script under ``xvfb-run -a -s "-screen 0 1400x900x24"``. ``home_with(...)`` writes a home with
settings, an ``mcp.json`` and a file-backed keyring holding the given secrets.

The scripts that start the app themselves (another command line, ``SWITCHBOARD_HOME``, a null keyring) use the
pieces ``App`` is made of: ``app_env`` (the environment), ``running`` (start the process, always stop it),
``app_window`` (both, with the main window placed), ``wait_window``/``place``/``focus`` (find, size and focus
a window), ``open_settings_page`` (Settings on a page, from the keyboard), ``write_settings`` (a theme and a
provider), ``grab`` (the screen, a window or a crop of it) and ``each_theme`` (a script's main).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots"
DEMO = ROOT / "docs" / "examples" / "demo_tools" / "server.py"
SCREEN = (1400, 900)


def xdotool(*args: str) -> str:
    return subprocess.run(["xdotool", *args], capture_output=True, text=True, check=False).stdout.strip()


def wait_window(name: str, timeout_s: float = 30.0) -> str:
    """The X id of the (last) visible window whose title matches the regular expression ``name``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = xdotool("search", "--onlyvisible", "--name", name)
        if found:
            return found.splitlines()[-1]
        time.sleep(0.2)
    raise SystemExit(f"no window named {name!r} appeared")


def place(window: str, size: tuple[int, int], at: tuple[int, int] = (0, 0)) -> None:
    """Size and move a window (there is no window manager to do it)."""
    xdotool("windowsize", window, str(size[0]), str(size[1]))
    xdotool("windowmove", window, str(at[0]), str(at[1]))


def focus(window: str) -> None:
    xdotool("windowfocus", "--sync", window)  # no window manager: give it the focus


def grab(path: Path, window: str | None = None, crop: str | None = None) -> Path:
    """The screen (or only ``window``, an X window id; or the ``crop`` geometry ``WxH+X+Y`` of the screen)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["import", "-window", window or "root", *(["-crop", crop] if crop else []), str(path)], check=True)
    print(path)
    return path


def settings_page_index(key: str) -> int:
    """Where the Settings page ``key`` sits in the sidebar (the registry's order), counted from the top."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(ROOT))
    from desktop_app.ui.settings.registry import registered_pages

    return [page.key for page in registered_pages()].index(key)


def open_settings_page(window: str, key: str, size: tuple[int, int], at: tuple[int, int]) -> str:
    """Ctrl+, in the main ``window``, the Settings window sized and moved, then its page ``key`` chosen from the
    keyboard (Home, Down as often as the page's place); the Settings window."""
    index = settings_page_index(key)
    focus(window)
    xdotool("key", "ctrl+comma")
    settings = wait_window("^Settings$")
    place(settings, size, at)
    focus(settings)
    time.sleep(1)
    xdotool("key", "Home")
    for _ in range(index):
        xdotool("key", "Down")
    time.sleep(1.5)
    return settings


def write_settings(
    home: Path, *, theme: str, provider: dict[str, Any], appearance: dict[str, Any] | None = None, **extra: Any
) -> None:
    """``home``'s settings.json: the provider, the theme (and more ``appearance``) and ``extra`` settings."""
    (home / "config").mkdir(parents=True, exist_ok=True)
    data = {"provider": provider, "appearance": {"theme": theme, **(appearance or {})}, **extra}
    (home / "config" / "settings.json").write_text(json.dumps(data, indent=2), encoding="utf-8")


def app_env(
    *, keyring_file: Path | None = None, home: Path | None = None, extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The app's environment: a real display, the repository importable, a file-backed test keyring
    (``keyring_file``) or none at all (the null keyring), ``SWITCHBOARD_HOME`` only when ``home`` is given."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(extra or {})}
    env.pop("QT_QPA_PLATFORM", None)
    env.pop("SWITCHBOARD_HOME", None)
    if home is not None:
        env["SWITCHBOARD_HOME"] = str(home)
    if keyring_file is None:
        env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    else:
        env["PYTHON_KEYRING_BACKEND"] = "tests.support.file_keyring.FileKeyring"
        env["SWITCHBOARD_TEST_KEYRING_FILE"] = str(keyring_file)
    return env


def app_command(*args: str) -> list[str]:
    """``python -m desktop_app ARGS``: the app, as ``.venv/bin/switchboard`` runs it."""
    return [sys.executable, "-m", "desktop_app", *args]


@contextmanager
def running(command: list[str], env: dict[str, str], stop_timeout_s: float = 10.0, **popen: Any) -> Iterator[Any]:
    """The app process for the ``with`` block; terminated (killed if it does not stop) however the block ends."""
    process = subprocess.Popen(command, cwd=ROOT, env=env, **popen)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(stop_timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()


@contextmanager
def app_window(command: list[str], env: dict[str, str], **popen: Any) -> Iterator[str]:
    """``running(command, env)`` with its main window found and placed over the whole screen: its X id."""
    with running(command, env, **popen):
        window = wait_window("^Switchboard$")
        place(window, SCREEN)
        yield window


def each_theme(shoot: Callable[[str], object], argv: list[str]) -> int:
    """``shoot(theme)`` for the themes named on the command line (light and dark by default); the exit code."""
    for theme in argv or ["light", "dark"]:
        shoot(theme)
    return 0


def home_with(
    home: Path,
    *,
    theme: str,
    provider: dict[str, Any],
    servers: dict[str, Any] | None = None,
    secrets: dict[str, str] | None = None,
    settings: dict[str, Any] | None = None,
) -> Path:
    """Write ``home``'s settings and ``mcp.json``; returns the keyring file holding ``secrets``."""
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "mcp.json").write_text(json.dumps({"mcpServers": servers or {}}, indent=2) + "\n", "utf-8")
    data = {"provider": provider, "appearance": {"theme": theme}, **(settings or {})}
    (home / "config" / "settings.json").write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    (home / "data").mkdir(parents=True, exist_ok=True)
    (home / "data" / "no-tray-noticed").touch()  # Xvfb has no tray: its one-time notice is not the subject
    keyring_file = home.parent / f"{home.name}-keyring.json"
    keyring_file.write_text(json.dumps({f"switchboard\0{k}": v for k, v in (secrets or {}).items()}), "utf-8")
    return keyring_file


class App:
    """The real app under Xvfb, sized to the screen, with the launcher's where/what protocol."""

    def __init__(
        self,
        home: Path,
        *,
        keyring_file: Path | None = None,
        env: dict[str, str] | None = None,
        ready_timeout_s: float = 60.0,
        no_keyring: bool = False,
        args: tuple[str, ...] = (),
    ) -> None:
        """``args``: more of the app's own arguments after ``--home HOME`` (``--quick``, …)."""
        self.home = home
        if keyring_file is None and not no_keyring:  # a working (file-backed, test) keyring: no warning in the shots
            keyring_file = home.parent / f"{home.name}-keyring.json"
            if not keyring_file.exists():
                keyring_file.write_text("{}", encoding="utf-8")
        env = app_env(keyring_file=keyring_file, extra=env)  # ``no_keyring``: the null keyring, as with none at all
        launcher = ROOT / "scripts" / "_app_launcher.py"
        self.process = subprocess.Popen(
            [sys.executable, str(launcher), "--home", str(home), *args],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self._lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.ready_timeout_s = ready_timeout_s

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)
            self._lines.put(line)

    def __enter__(self) -> App:
        self.window = self.wait_window("Switchboard$")
        place(self.window, SCREEN)
        self.wait_line("runtime: ready", self.ready_timeout_s)
        self.focus()
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if kind is not None:  # what the screen showed when the script gave up
            failed = Path(os.environ.get("SHOTS_FAILED", "/tmp/switchboard-shot-failed.png"))
            subprocess.run(["import", "-window", "root", str(failed)], check=False)
            print(f"the screen at the failure: {failed}", file=sys.stderr)
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()

    # -- waiting -------------------------------------------------------------------------------------------

    def wait_line(self, text: str, timeout_s: float = 30.0) -> str:
        deadline = time.monotonic() + timeout_s
        for line in list(self.output):
            if text in line:
                return line
        while time.monotonic() < deadline:
            try:
                line = self._lines.get(timeout=0.2)
            except queue.Empty:
                if self.process.poll() is not None:
                    raise SystemExit(f"the app exited ({self.process.returncode}) before {text!r}") from None
                continue
            if text in line:
                return line
        raise SystemExit(f"the app never printed {text!r}")

    def wait_window(self, name: str, timeout_s: float = 30.0) -> str:
        return wait_window(name, timeout_s)

    def ask(self, **command: Any) -> dict[str, Any]:
        """One launcher command (``where``, ``what``), answered on the app's stdout as ``@@ {json}``."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        line = self.wait_line("@@ ", 10)
        self.output.remove(line)
        return dict(json.loads(line.split("@@ ", 1)[1]))

    def where(self, name: str, index: int = -1) -> tuple[int, int] | None:
        """The screen centre of the visible widget called ``name`` (the last one by default), or None."""
        answer = self.ask(do="where", object=name, index=index)
        return (answer["x"], answer["y"]) if answer.get("found") else None

    def wait_for(self, name: str, timeout_s: float = 30.0, index: int = -1) -> tuple[int, int]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            point = self.where(name, index)
            if point is not None:
                return point
            time.sleep(0.25)
        raise SystemExit(f"no visible widget {name!r}")

    def wait_text(self, name: str, text: str, timeout_s: float = 30.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if text in str(self.ask(do="what", object=name).get("text", "")):
                return
            time.sleep(0.25)
        raise SystemExit(f"{name!r} never showed {text!r}")

    def settle(self, seconds: float = 0.8) -> None:
        """Let animations, the last stream frames and the paint finish before a screenshot."""
        time.sleep(seconds)

    # -- input -----------------------------------------------------------------------------------------------

    def focus(self, window: str | None = None) -> None:
        focus(window or self.window)

    def click(self, name: str, index: int = -1) -> None:
        x, y = self.wait_for(name, index=index)
        xdotool("mousemove", str(x), str(y))
        xdotool("click", "1")
        xdotool("mousemove", str(SCREEN[0] - 2), str(SCREEN[1] - 2))  # no hover highlight in the shot

    def type(self, text: str) -> None:
        xdotool("type", "--delay", "15", text)

    def key(self, *keys: str) -> None:
        for key in keys:
            xdotool("key", key)
            time.sleep(0.15)

    def shot(self, path: Path, window: str | None = None) -> Path:
        """The screen (or only ``window``, an X window id: a dialog without a window manager's frame)."""
        return grab(path, window)


__all__ = [
    "DEMO",
    "OUT",
    "ROOT",
    "App",
    "app_command",
    "app_env",
    "app_window",
    "each_theme",
    "focus",
    "grab",
    "home_with",
    "open_settings_page",
    "place",
    "running",
    "settings_page_index",
    "wait_window",
    "write_settings",
    "xdotool",
]
