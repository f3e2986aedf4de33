"""Screenshots of workflows in the real app under Xvfb, light and dark:

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_workflows.py [light|dark ...]

For each theme: a fresh home with three workflows in its config folder's ``workflows/`` (the review and the
release with rollback from tests/fixtures/workflows, and a broken one), and the loopback SSE server from tests/
as the provider (the real OpenAI wire format). View → Workflows… opens the page (``workflows-page-THEME.png``: the
list, the review's inputs filled in); Run starts it, and the window is taken once the workflow finished with its
step list (the first step opened) and Output in the chat (``workflow-run-THEME.png``). Driven through
``scripts/_shots.py`` (real X input with xdotool).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import OUT, ROOT, App, each_theme, home_with, xdotool
from tests.support.llm_server import ScriptedLLMServer, text_reply

FIXTURES = ROOT / "tests" / "fixtures" / "workflows"
CHANGES = "src/store.py\nsrc/export.py"
REVIEW = (
    "**src/store.py**: `save()` swallows `OSError`; let it reach the caller so the user learns the disk is full.\n\n"
    "**src/export.py**: the loop reads each row twice; read it once. Names and tests look good."
)


def shoot(theme: str) -> None:
    replies = [text_reply(CHANGES, piece=12), text_reply(REVIEW, piece=12)]
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
        folder = home / "config" / "workflows"
        shutil.copytree(FIXTURES / "good" / "pr-review", folder / "pr-review")
        shutil.copytree(FIXTURES / "good" / "release-with-rollback", folder / "release-with-rollback")
        shutil.copytree(FIXTURES / "broken" / "bad-refs", folder / "bad-refs")
        with App(home, keyring_file=keyring_file) as app:
            xdotool("mousemove", "97", "9")  # the View menu (no window manager: Alt+V does not reach the bar)
            xdotool("click", "1")
            app.settle(1.0)
            app.key("w")  # Workflows…
            dialog = app.wait_window("^Workflows$")
            app.wait_for("workflowInput-target")
            app.click("workflowInput-target")
            app.type("src/")
            app.click("workflowInput-focus")
            app.type("error handling")
            app.settle(1.0)
            app.shot(OUT / f"workflows-page-{theme}.png", window=dialog)
            app.click("runWorkflowButton")
            app.wait_for("workflowOutput", timeout_s=30)
            app.wait_text("statusText", "Workflow pr-review: finished", timeout_s=30)
            app.click("subConversationToggle", index=0)  # the first step opened: its prompt and answer
            app.settle(1.5)
            app.shot(OUT / f"workflow-run-{theme}.png")


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
