"""Models that no start-up step validates build their pydantic schemas on first use, not with their import
(``defer_build``, issue 27: ~6 ms off the way to ``runtime: ready``), and still validate as before then."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

DEFERRED = {
    "desktop_app.runtime.providers.base": ["ChatRequest", "ContentChunk", "ToolCallChunk", "UsageChunk", "Completion"],
    "desktop_app.runtime.messages": ["SystemMessage", "UserMessage", "AssistantMessage", "ToolMessage", "ToolSpec"],
    "desktop_app.runtime.hooks.notices": ["HookNotice"],
    "desktop_app.runtime.hooks.model": ["HookDef"],
    "desktop_app.runtime.host.outcomes": ["CallOutcome"],
    "desktop_app.runtime.host.tool_table": ["HostTool"],
    "desktop_app.runtime.host.server_status": ["ServerStatus"],
    "desktop_app.runtime.run.approvals": ["Grant"],
    "desktop_app.runtime.events.parts": ["TokenUsage", "ConversationUsage", "RetryInfo"],
    "desktop_app.runtime.agents.server": ["AgentAttachment"],
}


def test_models_no_start_up_step_validates_are_built_on_first_use():
    code = (
        "import importlib, json, sys\n"
        "import desktop_app.runtime.service, desktop_app.runtime.host\n"
        f"deferred = {DEFERRED!r}\n"
        "built = [f'{m}.{n}' for m, names in deferred.items() for n in names"
        " if getattr(importlib.import_module(m), n).__pydantic_complete__]\n"
        "print(json.dumps(built))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


def test_a_deferred_model_validates_on_first_use():
    from desktop_app.runtime.messages import UserMessage
    from desktop_app.runtime.providers.base import ChatRequest

    request = ChatRequest.model_validate({"model": "m", "messages": [UserMessage(content="hi")]})
    assert request.messages[0].content == "hi" and ChatRequest.__pydantic_complete__
