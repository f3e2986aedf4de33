"""The Servers dock shows a server's stderr and failure with every known secret masked: a real Host runs a stdio
server that prints a remembered secret to stderr and exits, and the real ServersPanel shows it. Issue 21, guard 4."""

from __future__ import annotations

import sys

from desktop_app.runtime.host import Host, ServerConfig
from desktop_app.runtime.redaction import MASK, remember
from desktop_app.ui.servers.panel import ServersPanel

SECRET = "correct-horse-battery-staple-42"
"""A known secret that is not key-shaped: only remembering it masks it."""

PRINTS_THE_SECRET = (
    "import os, sys; sys.stderr.write('upstream rejected token ' + os.environ['UPSTREAM_TOKEN'] + '\\n')"
)


def test_the_stderr_view_and_the_failure_show_a_known_secret_masked(qtbot, qloop) -> None:
    remember(SECRET)  # as Credentials does for a keyring value the server's env was given
    config = ServerConfig(command=sys.executable, args=["-c", PRINTS_THE_SECRET], env={"UPSTREAM_TOKEN": SECRET})
    host = Host({"leaky": config}, startup_timeout=30, call_timeout=30)
    panel = ServersPanel()
    qtbot.addWidget(panel)
    panel.attach(host)
    start = qloop.create_task(host.start())
    try:
        qtbot.waitUntil(start.done, timeout=30_000)
        start.result()
        qtbot.waitUntil(lambda: panel.row_text("leaky") == "Failed", timeout=10_000)
        panel.select("leaky")
        panel.refresh_details()  # what the Refresh button does: read the tail from the host again
        stderr = panel.details.stderr_view.toPlainText()
        assert stderr.strip() == f"upstream rejected token {MASK}"
        error = panel.rows["leaky"].error_label.text()
        assert MASK in error and SECRET not in error
        logged = "\n".join(line.text for line in panel.details.log_lines("leaky"))
        assert SECRET not in logged
    finally:
        close = qloop.create_task(host.aclose())
        qtbot.waitUntil(close.done, timeout=30_000)
