"""The first instance's QLocalServer: claiming the address, a stale socket, a live owner, a bad folder."""

from __future__ import annotations

import socket
from pathlib import Path

from desktop_app.instance import request, server_address
from desktop_app.ui.single_instance import InstanceServer


def test_claim_replaces_a_stale_socket_and_answers_requests(qtbot, qloop, switchboard_home):
    address = server_address(str(switchboard_home))
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(address)  # what a SIGKILLed instance leaves behind
    dead.close()
    server = InstanceServer(address, lambda message: {"ok": True, "echo": message["action"]})
    try:
        assert server.claim() == "claimed" and server.replaced_stale
        assert Path(address + ".pid").read_text().strip().isdigit()
        task = qloop.run_in_executor(None, request, {"action": "query"}, address)
        qtbot.waitUntil(task.done)
        assert task.result()["echo"] == "query" and task.result()["ok"]

        rival = InstanceServer(address, lambda message: {"ok": True})
        assert rival.claim() == "taken"  # the live owner keeps its address
    finally:
        server.close()
    assert not Path(address + ".pid").exists()


def test_an_address_that_cannot_be_listened_on_fails_without_stealing(qtbot, tmp_path):
    server = InstanceServer(str(tmp_path / "no-such-folder" / "sb.sock"), lambda message: {"ok": True})
    assert server.claim() == "failed"
