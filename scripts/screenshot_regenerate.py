"""The answer's version switcher after Regenerate, from the real app under Xvfb, light and dark.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_regenerate.py [light|dark ...]

For each theme: a fresh home whose provider is the loopback SSE server from tests/ (the real OpenAI wire
format), scripted with two answers to one question; the question is typed and sent, the answer's Regenerate is
clicked, and the window is taken with ``‹ 2/2 ›`` under the new answer (docs/screenshots/regenerate-THEME.png);
then ``‹`` brings the first answer back with its own footer (regenerate-previous-THEME.png). Driven through
``scripts/_shots.py`` (real X input with xdotool).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import OUT, App, each_theme, home_with
from tests.support.llm_server import ScriptedLLMServer, text_reply

PROMPT = "A first project for learning Rust?"
FIRST = (
    "Write a **command-line word counter**: it reads files, counts words and prints a table. It touches "
    "ownership, error handling with `Result` and the standard library without any async or lifetimes."
)
SECOND = (
    "Build a small **to-do list CLI** that saves to a JSON file with `serde`. You meet structs, enums, "
    "pattern matching and crates in one afternoon, and it grows naturally as you learn."
)


def shoot(theme: str) -> None:
    replies = [text_reply(FIRST, piece=12), text_reply(SECOND, piece=12)]
    with ScriptedLLMServer(replies) as llm, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        provider = {"base_url": llm.url, "model": "test-model", "dialect": "openai"}
        keyring_file = home_with(
            home,
            theme=theme,
            provider=provider,
            secrets={f"api-key:{llm.url}": "sk-demo-not-a-real-key-000000"},
            settings={"context_os": False},
        )
        with App(home, keyring_file=keyring_file) as app:
            app.click("composer")
            app.type(PROMPT)
            app.key("Return")
            app.wait_text("statusText", "Ready", timeout_s=30)
            app.wait_for("regenerateButton")
            app.click("regenerateButton")
            app.wait_for("answerVersions")
            app.wait_text("statusText", "Ready", timeout_s=30)
            app.settle(1.5)
            app.shot(OUT / f"regenerate-{theme}.png")
            app.click("previousVersionButton")  # the answer's ‹ (the question has one version: hidden)
            app.settle(1.2)
            app.shot(OUT / f"regenerate-previous-{theme}.png")


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
