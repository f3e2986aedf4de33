"""The official MCP Apps example servers from npm (pinned in scripts/install-test-servers.sh) render in the
window (issue 26): server-basic-vanillajs's get-time view and server-pdf's PDF viewer on a local PDF, each
initialized with the tool's input and result; the PDF viewer fetches the document through its app-only
tool (``read_pdf_bytes``, never offered to the model) and sizes itself. Skipped only when the servers are not
installed and ``CI`` is unset."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from desktop_app.runtime.apps.view_calls import ViewCall
from desktop_app.runtime.host import ServerConfig
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply
from tests.unit.ui.apps.conftest import build, close

ROOT = Path(__file__).resolve().parents[5]
APPS = ROOT / ".test-servers" / "apps" / "node_modules" / "@modelcontextprotocol"
BASIC = APPS / "server-basic-vanillajs" / "dist" / "index.js"
PDF = APPS / "server-pdf" / "dist" / "index.js"
LOCAL_NODE = ROOT / ".test-servers" / "node_modules" / ".bin" / "node"
NODE = str(LOCAL_NODE) if LOCAL_NODE.exists() else shutil.which("node")

INIT, INPUT, RESULT = (
    ("in", "ui/initialize"),
    ("out", "ui/notifications/tool-input"),
    ("out", "ui/notifications/tool-result"),
)
pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not (BASIC.is_file() and PDF.is_file() and NODE) and not os.environ.get("CI"),
        reason="run scripts/install-test-servers.sh",
    ),
]


def tiny_pdf(path: Path) -> Path:
    """A one-page PDF with a line of text (hand-written objects, correct xref offsets)."""
    stream = b"BT /F1 24 Tf 72 720 Td (Switchboard MCP Apps) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
    return path


def test_the_example_servers_views_render(
    qtbot: Any, qloop: Any, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    assert NODE is not None
    pdf = tiny_pdf(tmp_path / "paper.pdf")
    servers = {
        "basic": ServerConfig(command=NODE, args=[str(BASIC), "--stdio"]),
        "pdf": ServerConfig(command=NODE, args=[str(PDF), "--stdio", str(pdf)]),
    }
    app = build(qtbot, llm_server, servers=servers, policy="always", probe=False)
    try:
        calls: list[ViewCall] = []
        app.apps.views.calls.listeners.append(calls.append)
        offered = [t.name for t in app.host.tools()]
        assert "mcp__pdf__display_pdf" in offered and not [n for n in offered if "read_pdf_bytes" in n]
        llm_server.enqueue(
            tool_call_reply(
                [
                    ("c1", "mcp__basic__get-time", {}),
                    ("c2", "mcp__pdf__display_pdf", {"url": str(pdf)}),
                ]
            ),
            text_reply("Here they are."),
        )
        app.window.composer.edit.setPlainText("show the time and my paper")
        qtbot.keyClick(app.window.composer.edit, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: len(app.apps.frames) == 2, timeout=30_000)
        frames = {f.server: f for f in app.apps.frames.values()}

        def traffic(server: str) -> list[tuple[str, str]]:
            session = frames[server].session
            return list(session.bridge.traffic) if session is not None and session.bridge is not None else []

        def rendered(server: str) -> bool:
            seen = traffic(server)
            return ("in", "ui/notifications/initialized") in seen and ("out", "ui/notifications/tool-result") in seen

        qtbot.waitUntil(lambda: rendered("basic") and rendered("pdf"), timeout=60_000)
        for server in ("basic", "pdf"):
            seen = traffic(server)
            assert seen.index(("in", "ui/initialize")) < seen.index(("out", "ui/notifications/tool-input"))
            assert seen.index(("out", "ui/notifications/tool-input")) < seen.index(
                ("out", "ui/notifications/tool-result")
            )
        # the viewer reads the document through its app-only tool; the clock view fits its height to itself
        qtbot.waitUntil(lambda: ("in", "tools/call") in traffic("pdf"), timeout=60_000)
        qtbot.waitUntil(lambda: ("in", "ui/notifications/size-changed") in traffic("basic"), timeout=60_000)
        first_call = traffic("pdf").index(("in", "tools/call"))
        qtbot.waitUntil(lambda: ("out", "response") in traffic("pdf")[first_call:], timeout=60_000)
        done = [c for c in calls if c.state == "done"]
        assert done and done[0].tool == "read_pdf_bytes" and done[0].server == "pdf"
        assert done[0].outcome is not None and not done[0].outcome.is_error
    finally:
        close(qtbot, app)
