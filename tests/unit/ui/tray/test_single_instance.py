"""The first instance's QLocalServer: claiming the address, a stale socket, a live owner, a bad folder."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import tempfile
from pathlib import Path

from desktop_app.instance import request, server_address
from desktop_app.ui.tray.single_instance import InstanceServer


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


def test_the_socket_in_the_temp_folder_is_private_to_the_user(qtbot, monkeypatch, switchboard_home):
    """Issue 21 guard 6: without $XDG_RUNTIME_DIR the socket lies in the shared temp folder, where only its mode
    (UserAccessOption) keeps another local user from forwarding file paths to this instance."""
    folder = Path(tempfile.mkdtemp(prefix="sb-", dir="/tmp"))  # short: a socket path has at most 107 bytes
    folder.chmod(0o1777)  # like /tmp: everyone may create files here
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("TMPDIR", str(folder))
    address = server_address(str(switchboard_home))
    assert Path(address).parent == folder
    old_umask = os.umask(0o022)  # the usual umask: a socket made without the option would be group/other readable
    server = InstanceServer(address, lambda message: {"ok": True})
    try:
        assert server.claim() == "claimed"
        mode = os.stat(address).st_mode
        assert stat.S_ISSOCK(mode)
        assert stat.S_IMODE(mode) & 0o077 == 0, oct(stat.S_IMODE(mode))  # no access for the group or others
        assert os.stat(address).st_uid == os.getuid()
    finally:
        os.umask(old_umask)
        server.close()
        shutil.rmtree(folder, ignore_errors=True)


def test_a_socket_another_user_owns_at_the_address_is_never_talked_to(qtbot, qloop, monkeypatch, switchboard_home):
    """Another local user who creates the socket first (the shared temp folder) must not receive the paths a
    launch forwards, nor make this instance stand down: the client ignores it, the server does not claim beside it."""
    address = server_address(str(switchboard_home))
    received: list[dict] = []
    squatter = InstanceServer(address, lambda message: received.append(message) or {"ok": True})
    assert squatter.claim() == "claimed"
    try:
        real_uid = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: real_uid + 1)  # the socket now belongs to "another user"
        task = qloop.run_in_executor(None, request, {"action": "forward", "argv": ["secret-plan.txt"]}, address)
        qtbot.waitUntil(task.done)
        assert task.result() is None  # as if nobody listened: this launch starts its own window
        mine = InstanceServer(address, lambda message: {"ok": True})
        assert mine.claim() == "failed"  # runs without single-instance rather than beside the other user's socket
        assert received == []
    finally:
        monkeypatch.undo()
        squatter.close()
