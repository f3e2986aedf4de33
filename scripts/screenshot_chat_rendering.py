"""The chat's rendering from the real app under Xvfb, light and dark: a tool card whose arguments a PreToolUse
hook changed (what ran, with the hook's −/+ diff) and its hook chips, an answer with a table and a
blockquote, the message actions shown on hover, a table caught mid-stream, and the inline edit.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_chat_rendering.py [light|dark ...]

For each theme: a fresh home whose ``mcp.json`` holds a small CRM server (``lookup(name, fields)``, written to
the temporary folder) and the shipped PII redactor (docs/examples/hooks/pii_redactor.py); ``settings.json``
has a PreToolUse hook "privacy" that narrows ``"fields": "all"`` to ``"public"`` and the response hook
``pii/redact``. The provider is the loopback SSE server from tests/ (the OpenAI wire format). Output in
docs/screenshots/: hooks-chips-THEME.png (the expanded card), chat-rendering-THEME.png (the answer, the
actions under the pointer), chat-streaming-table-THEME.png, edit-inline-THEME.png.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import OUT, ROOT, App, each_theme, home_with, xdotool
from tests.support.llm_server import Gate, Pause, Reply, ScriptedLLMServer, text_reply, tool_call_reply

PROMPT = "Look up Ada in the CRM and tell me how to reach her."
CRM = """from mcp.server.mcpserver import MCPServer

server = MCPServer("crm")


@server.tool(description="Look up a contact; fields: all or public.", structured_output=False)
def lookup(name: str, fields: str = "public") -> str:
    private = ", home +44 20 7946 0958, ada@example.com" if fields == "all" else ""
    return f"{name} Lovelace (fields={fields}): office +44 20 7946 0000, prefers email{private}"


if __name__ == "__main__":
    server.run("stdio")
"""
ANSWER = """Ada's **public** record came back (the *privacy* hook narrowed the lookup to public fields):

| channel | value | best for |
|---|---|---|
| office phone | +44 20 7946 0000 | quick questions |
| e-mail | on request | anything written |

> She prefers e-mail: write first, and call only if the matter is urgent. Her private number stays out of
> this conversation, as the hook intended.

Ask me to draft the e-mail if you like.
"""


def _held_mid_table(reply: Reply, gate: Gate) -> Reply:
    """The answer streamed at reading pace, held (``gate``) once the table's second row is on its way."""
    steps: list = []
    sent = 0
    for step in reply.steps:
        steps.append(step)
        steps.append(Pause(0.01))
        sent += 6
        if gate not in steps and sent >= ANSWER.index("| e-mail") + 10:
            steps.append(gate)
    return Reply(status=reply.status, steps=steps, headers=reply.headers, content_type=reply.content_type)


def shoot(theme: str) -> None:
    gate = Gate()
    replies = [
        tool_call_reply([("call_lookup", "mcp__crm__lookup", {"name": "Ada", "fields": "all"})]),
        _held_mid_table(text_reply(ANSWER, piece=6), gate),
    ]
    with ScriptedLLMServer(replies) as llm, tempfile.TemporaryDirectory() as tmp:
        crm = Path(tmp) / "crm_server.py"
        crm.write_text(CRM, encoding="utf-8")
        narrowed = json.dumps({"updated_input": {"name": "Ada", "fields": "public"}, "reason": "public fields only"})
        hooks = {
            "PreToolUse": [{"command": f"echo '{narrowed}'", "match": "mcp__crm__lookup", "description": "privacy"}],
            "tools/call?direction=response&name=lookup": ["pii/redact"],
        }
        home = Path(tmp) / "home"
        provider = {"base_url": llm.url, "model": "test-model", "dialect": "openai"}
        keyring_file = home_with(
            home,
            theme=theme,
            provider=provider,
            servers={
                "crm": {"command": sys.executable, "args": [str(crm)]},
                "pii": {"command": sys.executable, "args": [str(ROOT / "docs/examples/hooks/pii_redactor.py")]},
            },
            secrets={f"api-key:{llm.url}": "sk-demo-not-a-real-key-000000"},
            settings={"context_os": False, "hooks": hooks},
        )
        with App(home, keyring_file=keyring_file) as app:
            app.wait_text("mcpIndicator", "2 ready", timeout_s=60)
            app.click("composer")
            app.type(PROMPT)
            app.key("Return")
            app.wait_for("approveButton")
            app.settle(0.5)
            app.click("approveButton")
            app.wait_for("markdownProse")  # the answer streams: catch the table on its way
            time.sleep(1.5)
            app.shot(OUT / f"chat-streaming-table-{theme}.png")
            gate.open()
            app.wait_text("statusText", "Ready", timeout_s=30)
            app.settle(1.0)
            app.click("toolCardTitle")  # unfold the card: what ran, the hook's diff, the chips
            app.settle()
            app.shot(OUT / f"hooks-chips-{theme}.png")
            app.click("toolCardTitle")
            app.settle()
            x, y = app.wait_for("answerView")  # the pointer over the answer: its actions show
            xdotool("mousemove", str(x), str(y))
            app.settle()
            app.shot(OUT / f"chat-rendering-{theme}.png")
            app.click("userMessage")  # the pointer over your message, then Edit
            app.click("editMessageButton")
            app.settle()
            app.shot(OUT / f"edit-inline-{theme}.png")
            app.key("Escape")


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
