"""The design screenshots (issue 24): ten scenes of the real app, light and dark, at 800×600, 1400×900 and 1920×1080.

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python scripts/screenshot_design_scenes.py [light|dark ...]

Every picture is the real app (``desktop_app.__main__:main`` through ``scripts/_app_launcher.py``, with the real
MainWindow and Runtime) driven with real X input by ``scripts/_shots.py``; the provider is the loopback SSE
server from ``tests/support/llm_server.py`` (the OpenAI wire format, streamed), the tools come from real stdio
MCP servers. One app per group of scenes and theme: the window is resized to each size in turn (there is no
window manager, so ``xdotool`` sizes it) and the screen's top-left ``W×H`` is taken with ImageMagick's
``import``, then stripped and recompressed. Output: ``docs/screenshots/<scene>-<W>x<H>-<theme>.png``.

The scenes (``SCENES``): first-run (no provider: the welcome screen over the window), empty (the main window
before the first message), answer (a streamed answer with reasoning, a code block, a table and a quote),
approval (a tool call waiting for approval), hook-changed (a call whose arguments a PreToolUse hook narrowed:
the card's hook notice and before/after), tools-panel (a stdio server with 70 tools), servers-failed (the
Servers panel with a server that failed to start), settings, quick-prompt (``--quick``, with its answer) and
error-retry (the provider keeps answering HTTP 503: the error notice and its Retry).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts import _shots
from scripts._shots import OUT, ROOT, App, home_with, place, write_settings, xdotool
from scripts.screenshot_chat_rendering import CRM
from scripts.screenshot_welcome import SERVERS as CLAUDE_DESKTOP_SERVERS
from tests.support.llm_server import (
    ScriptedLLMServer,
    error_reply,
    replies_from_script,
    text_reply,
    tool_call_reply,
)

SIZES: tuple[tuple[int, int], ...] = ((800, 600), (1400, 900), (1920, 1080))
THEMES: tuple[str, ...] = ("light", "dark")
SCENES: tuple[str, ...] = (
    "first-run",
    "empty",
    "answer",
    "approval",
    "hook-changed",
    "tools-panel",
    "servers-failed",
    "settings",
    "quick-prompt",
    "error-retry",
)
SCREEN = (1920, 1080)
KEY = "sk-demo-not-a-real-key-000000"
CATALOG = ROOT / "docs" / "examples" / "demo_tools" / "server.py"
QUIET = {"context_os": False, "context_datetime": False}
"""No date or OS chips: the pictures do not change with the day they were taken."""
QUICK_SCRIPT = ROOT / "tests" / "support" / "scripts" / "quick_prompt_demo.json"


def picture(scene: str, size: tuple[int, int], theme: str) -> Path:
    """Where a scene's picture lives: ``docs/screenshots/<scene>-<W>x<H>-<theme>.png``."""
    return OUT / f"{scene}-{size[0]}x{size[1]}-{theme}.png"


# -- what the scenes say ---------------------------------------------------------------------------------------

QUESTION = "Our settings file came back empty after a crash. How do I make the save safe?"
REASONING = (
    "An empty file after a crash means the write truncated the file first and filled it later. The fix is an "
    "atomic replace: write a temporary file in the same folder, fsync it, then os.replace it over the old one. "
    "A small table of the options and a warning about keeping the old file will help."
)
ANSWER = """## Make the save atomic

The file is **truncated first and filled later**, so a crash in between leaves it empty. Write the new
file beside the old one and swap it in:

```python
def save(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".json.tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)  # atomic on POSIX and Windows
```

| approach | survives a crash | cost |
|---|---|---|
| write in place | no | one write |
| temp file + rename | yes | one rename |
| temp file + fsync + rename | yes, and a power cut | one fsync |

> Keep the old file until the rename succeeded: a failed save then loses nothing.
"""
LOOKUP = "Look up Ada in the CRM and tell me how to reach her."
LOOKUP_ANSWER = (
    "Ada prefers **e-mail**; her office line is +44 20 7946 0000. The *privacy* hook kept her private number out."
)
FAILING = "Summarise this week's release notes for the team."
SEVENTY = """\"\"\"A stdio MCP server with 70 tools like a workspace connector (the demo catalog's first 70).\"\"\"
import ast
import sys
from mcp.server.mcpserver import MCPServer

tree = ast.parse(open(sys.argv[1], encoding="utf-8").read())
catalog = next(
    ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.AnnAssign) and n.target.id == "CATALOG"
)
tools = [(f"{group}_{name}", text) for group, entries in catalog.items() for name, text in entries][:70]
server = MCPServer("workspace", log_level="WARNING")


def make(label):
    def tool(target: str = "", text: str = "", limit: int = 20) -> str:
        return f"{label}(target={target!r}, text={text!r}, limit={limit})"
    return tool


for name, text in tools:
    server.add_tool(make(name), name=name, description=text)
assert len(tools) == 70, len(tools)
server.run()
"""


# -- taking a scene at every size ------------------------------------------------------------------------------


def grab_region(path: Path, size: tuple[int, int]) -> Path:
    """The screen's top-left ``size`` (where the window sits), stripped and recompressed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = path.with_suffix(".raw.png")
    crop = f"{size[0]}x{size[1]}+0+0"
    subprocess.run(["import", "-window", "root", "-crop", crop, "+repage", str(raw)], check=True)
    subprocess.run(
        ["convert", str(raw), "-strip", "-define", "png:compression-level=9", "-define", "png:compression-filter=5",
         str(path)],
        check=True,
    )  # fmt: skip
    raw.unlink()
    print(path, flush=True)
    return path


def pointer_away() -> None:
    """The pointer off every window: no hover highlight in the picture."""
    xdotool("mousemove", str(SCREEN[0] - 1), str(SCREEN[1] - 1))


def fit(window: str, wanted: tuple[int, int], size: tuple[int, int]) -> None:
    """Place a dialog or a tool window of ``wanted`` size (capped to ``size`` less a margin) centred in ``size``."""
    width, height = min(wanted[0], size[0] - 40), min(wanted[1], size[1] - 40)
    place(window, (width, height), ((size[0] - width) // 2, (size[1] - height) // 2))


def geometry(window: str) -> tuple[int, int]:
    """A window's current size, as X has it."""
    out = xdotool("getwindowgeometry", window)
    for line in out.splitlines():
        if "Geometry:" in line:
            w, h = line.split(":", 1)[1].strip().split("x")
            return int(w), int(h)
    return (800, 600)


def each_size(
    app: App, scene: str, theme: str, arrange: Callable[[tuple[int, int]], None] | None = None, settle: float = 0.7
) -> None:
    """The main window at every size (and ``arrange(size)`` for what sits above it), one picture each."""
    for size in SIZES:
        place(app.window, size)
        if arrange is not None:
            arrange(size)
        pointer_away()
        time.sleep(settle)
        grab_region(picture(scene, size, theme), size)
    place(app.window, SIZES[1])


def wait_ready(app: App, timeout_s: float = 40.0) -> None:
    """The run just started is over: the status line leaves "Ready" (if the run is not already done when it is
    first read) and says it again."""
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and app.ask(do="what", object="statusText").get("text") == "Ready":
        time.sleep(0.1)
    app.wait_text("statusText", "Ready", timeout_s=timeout_s)


def scroll(app: App, clicks: int, button: str = "4") -> None:
    """Wheel ``clicks`` over the transcript (4: up, 5: down)."""
    x, y = app.wait_for("answerView")
    xdotool("mousemove", str(x), str(y))
    for _ in range(clicks):
        xdotool("click", button)
    pointer_away()


FAILURES: list[str] = []


@contextmanager
def group(name: str, theme: str) -> Iterator[None]:
    """One app's scenes: a failure is reported and the other groups still run."""
    started = time.monotonic()
    try:
        yield
    except (Exception, SystemExit) as exc:
        FAILURES.append(f"{name} ({theme}): {exc!r}")
        traceback.print_exc()
    print(f"-- {name} ({theme}): {time.monotonic() - started:.1f} s", flush=True)


# -- the groups ------------------------------------------------------------------------------------------------


def first_run(theme: str, tmp: Path) -> None:
    """(a) No provider: the welcome screen opens over the window, with a Claude Desktop config to import."""
    home, xdg = tmp / "first-run", tmp / "xdg"
    claude = xdg / "Claude" / "claude_desktop_config.json"
    claude.parent.mkdir(parents=True, exist_ok=True)
    claude.write_text(json.dumps({"mcpServers": CLAUDE_DESKTOP_SERVERS}, indent=2), encoding="utf-8")
    write_settings(home, theme=theme, provider={}, **QUIET)
    (home / "data").mkdir(parents=True, exist_ok=True)
    (home / "data" / "no-tray-noticed").touch()
    with App(home, env={"XDG_CONFIG_HOME": str(xdg)}) as app:
        welcome = app.wait_window("^Welcome to Switchboard$")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # the loopback probe for Ollama/LM Studio reports within its timeout
            if str(app.ask(do="what", object="detectStatus").get("text", "")).startswith(("Found", "No local")):
                break
            time.sleep(0.25)
        wanted = geometry(welcome)

        def arrange(size: tuple[int, int]) -> None:
            fit(welcome, wanted, size)
            xdotool("windowraise", welcome)

        each_size(app, "first-run", theme, arrange)


def main_window(theme: str, tmp: Path) -> None:
    """(b) the empty window, (h) Settings, (c) a streamed answer, (j) an error with Retry in a new conversation."""
    replies = [
        text_reply(ANSWER, reasoning=REASONING, piece=8),
        *[error_reply(503, {"error": {"message": "The server is overloaded."}}, {"Retry-After": "0"})] * 4,
    ]
    with ScriptedLLMServer(replies) as llm:
        home = tmp / "main"
        provider = {"base_url": llm.url, "model": "deepseek-chat", "dialect": "openai"}
        keyring = home_with(home, theme=theme, provider=provider, secrets={f"api-key:{llm.url}": KEY},
                            settings=QUIET)  # fmt: skip
        with App(home, keyring_file=keyring) as app:
            app.settle(1.0)
            each_size(app, "empty", theme)

            app.key("ctrl+comma")
            settings = app.wait_window("^Settings$")
            app.focus(settings)
            app.settle(1.0)

            def arrange(size: tuple[int, int]) -> None:  # the Settings window itself, sized to the screen
                place(settings, size)
                xdotool("windowraise", settings)

            each_size(app, "settings", theme, arrange)
            app.key("Escape")
            app.focus()

            app.click("composer")
            app.type(QUESTION)
            app.key("Return")
            app.wait_for("usageFooter", timeout_s=40)  # the answer is complete
            wait_ready(app)
            app.click("reasoningToggle")  # the reasoning, unfolded
            app.click("composer")  # and the focus back where the next message is typed
            app.settle(1.0)
            each_size(app, "answer", theme, lambda _size: scroll(app, 30))  # from the question down

            app.key("ctrl+n")
            app.settle(0.5)
            app.click("composer")
            app.type(FAILING)
            app.key("Return")
            app.wait_for("retryRunButton", timeout_s=60)
            app.settle(1.0)
            each_size(app, "error-retry", theme)


def servers_with(tmp: Path, *names: str) -> dict[str, dict[str, object]]:
    """The scenes' stdio MCP servers: crm (one tool, ``lookup``), workspace (70 tools), analytics (not installed)."""
    crm, seventy = tmp / "crm_server.py", tmp / "workspace_server.py"
    crm.write_text(CRM, encoding="utf-8")
    seventy.write_text(SEVENTY, encoding="utf-8")
    every: dict[str, dict[str, object]] = {
        "crm": {"command": sys.executable, "args": [str(crm)]},
        "workspace": {"command": sys.executable, "args": [str(seventy), str(CATALOG)]},
        "analytics": {"command": "analytics-mcp-server", "args": ["--stdio"]},  # not installed: fails to start
    }
    return {name: every[name] for name in names}


def tools_and_hooks(theme: str, tmp: Path) -> None:
    """(d) an approval, (e) the call a PreToolUse hook changed, (f) the Tools panel with the 70-tool server."""
    narrowed = json.dumps({"updated_input": {"name": "Ada", "fields": "public"}, "reason": "public fields only"})
    hooks = {"PreToolUse": [{"command": f"echo '{narrowed}'", "match": "mcp__crm__lookup", "description": "privacy"}]}
    replies = [
        tool_call_reply([("call_lookup", "mcp__crm__lookup", {"name": "Ada", "fields": "all"})]),
        text_reply(LOOKUP_ANSWER, piece=8),
    ]
    with ScriptedLLMServer(replies) as llm:
        home = tmp / "tools"
        provider = {"base_url": llm.url, "model": "deepseek-chat", "dialect": "openai"}
        keyring = home_with(home, theme=theme, provider=provider, servers=servers_with(tmp, "crm", "workspace"),
                            secrets={f"api-key:{llm.url}": KEY}, settings={**QUIET, "hooks": hooks})  # fmt: skip
        with App(home, keyring_file=keyring) as app:
            app.wait_text("mcpIndicator", "2 ready", timeout_s=60)
            app.click("composer")
            app.type(LOOKUP)
            app.key("Return")
            app.wait_for("approveButton")
            app.settle(1.0)
            each_size(app, "approval", theme)

            app.click("approveButton")
            wait_ready(app)
            app.settle(0.5)
            app.click("toolCardTitle")  # unfold the card: what ran, the hook's notice and its before/after
            app.settle(0.8)
            each_size(app, "hook-changed", theme)

            app.key("ctrl+k")
            app.wait_for("toolSearch")
            app.click("toolTree")  # the first key press only makes the first row current
            app.key("Home", "End", "Right", "Down")  # the last server (workspace) unfolded, its first tool selected
            app.settle(0.8)
            each_size(app, "tools-panel", theme)


def failed_server(theme: str, tmp: Path) -> None:
    """(g) the Servers panel, opened from the status bar's MCP indicator, with the server that failed selected."""
    with ScriptedLLMServer([]) as llm:
        home = tmp / "servers"
        provider = {"base_url": llm.url, "model": "deepseek-chat", "dialect": "openai"}
        servers = servers_with(tmp, "crm", "workspace", "analytics")
        keyring = home_with(home, theme=theme, provider=provider, servers=servers,
                            secrets={f"api-key:{llm.url}": KEY}, settings=QUIET)  # fmt: skip
        with App(home, keyring_file=keyring) as app:
            app.wait_text("mcpIndicator", "2 ready", timeout_s=60)
            app.click("mcpIndicator")
            app.wait_for("serverRow:analytics")
            app.click("serverRow:analytics")
            app.wait_for("serverFailure")
            app.settle(0.8)
            each_size(app, "servers-failed", theme)


def quick_prompt(theme: str, tmp: Path) -> None:
    """(i) ``--quick``: the box above the window (Xvfb has no tray), with a streamed answer."""
    with ScriptedLLMServer(replies_from_script(json.loads(QUICK_SCRIPT.read_text("utf-8")))) as llm:
        home = tmp / "quick"
        provider = {"base_url": llm.url, "model": "deepseek-chat", "dialect": "openai"}
        keyring = home_with(home, theme=theme, provider=provider, secrets={f"api-key:{llm.url}": KEY},
                            settings=QUIET)  # fmt: skip
        with App(home, keyring_file=keyring, args=("--quick",)) as app:
            quick = app.wait_window("quick prompt$")
            app.wait_for("composer")
            app.focus(quick)
            app.type("How do I undo my last git commit but keep the changes?")
            app.key("Return")
            app.wait_text("quickStatus", "Ready", timeout_s=40)
            app.settle(1.0)
            wanted = geometry(quick)

            def arrange(size: tuple[int, int]) -> None:
                width, height = min(wanted[0], size[0] - 40), wanted[1]  # its height is its own: taller than
                place(quick, (width, height), ((size[0] - width) // 2, max(0, (size[1] - height) // 4)))  # 600 px: cut
                xdotool("windowraise", quick)

            each_size(app, "quick-prompt", theme, arrange)


def shoot(theme: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        with group("first-run", theme):
            first_run(theme, tmp)
        with group("main window", theme):
            main_window(theme, tmp)
        with group("tools and hooks", theme):
            tools_and_hooks(theme, tmp)
        with group("failed server", theme):
            failed_server(theme, tmp)
        with group("quick prompt", theme):
            quick_prompt(theme, tmp)


def main(argv: list[str]) -> int:
    _shots.SCREEN = SCREEN  # the scripts' pointer parking spot: the screen's far corner
    started = time.monotonic()
    for theme in argv or list(THEMES):
        shoot(theme)
    print(f"{time.monotonic() - started:.0f} s", flush=True)
    for failure in FAILURES:
        print(f"FAILED: {failure}", file=sys.stderr)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
