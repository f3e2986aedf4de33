"""The second launch's client (``desktop_app.instance``): what it imports, stale sockets, a hung instance."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app.instance import REPLY_TIMEOUT_S, forward, forward_main, instance_key, request, server_address

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("PySide6", "shiboken6", "qasync", "mcp", "pydantic", "httpx", "desktop_app.runtime", "desktop_app.app")


class FakeInstance:
    """A stdlib stand-in for the first instance: answers each request line with ``{"ok": true}``."""

    def __init__(self, address: str, *, answer: bool = True) -> None:
        self.address = address
        self.answer = answer
        self.requests: list[dict[str, object]] = []
        self.stopping = False
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(address)
        self.sock.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        if answer:
            self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.stopping:
                conn.close()
                return
            with conn:
                data = b""
                while b"\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                self.requests.append(json.loads(data.split(b"\n")[0]))
                conn.sendall(b'{"ok": true, "pid": 1}\n')

    def close(self) -> None:
        if self.thread.is_alive():  # wake the blocked accept() and let the thread end
            self.stopping = True
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as waker:
                waker.connect(self.address)
            self.thread.join(timeout=5)
        self.sock.close()
        Path(self.address).unlink(missing_ok=True)


@pytest.fixture
def address(switchboard_home: Path) -> Iterator[str]:
    path = server_address(str(switchboard_home))
    yield path
    Path(path).unlink(missing_ok=True)


def test_addresses_differ_per_home_folder(tmp_path):
    assert instance_key(str(tmp_path / "a")) != instance_key(str(tmp_path / "b"))
    assert instance_key(str(tmp_path / "a")) == instance_key(str(tmp_path / "a" / "." / ""))
    assert server_address(str(tmp_path / "a")) != server_address(str(tmp_path / "b"))


def test_no_instance_means_start_normally(address):
    assert not os.path.exists(address)
    assert forward(["--quick"]) is None
    assert forward_main(["--quick"]) is None


def test_a_first_launch_imports_neither_socket_nor_json(address, switchboard_home, tmp_path):
    """No instance listens (the usual launch): looking for one is a stat of its address, so the first paint
    does not wait for the socket module (~2.5 ms with selectors) or json."""
    assert not os.path.exists(address)
    code = (
        "import sys\n"
        "from desktop_app.instance import forward_main\n"
        f"rc = forward_main(['--home', {str(switchboard_home)!r}, '--quick'])\n"
        "print(rc, [m for m in ('socket', 'json') if m in sys.modules])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["None", "[]"], proc.stdout


def test_a_stale_socket_file_from_a_crash_is_not_an_instance(address):
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(address)  # bound, never listening, then gone: what a SIGKILLed instance leaves behind
    dead.close()
    assert os.path.exists(address)
    assert request({"action": "query"}, address) is None


def test_a_hung_instance_is_reported_after_a_short_timeout(address, capsys):
    hung = FakeInstance(address, answer=False)  # listens (the kernel accepts) but never answers
    try:
        Path(address + ".pid").write_text("4242")
        started = time.monotonic()
        assert forward_main(["--quick"]) == 1
        elapsed = time.monotonic() - started
    finally:
        hung.close()
        Path(address + ".pid").unlink(missing_ok=True)
    assert REPLY_TIMEOUT_S <= elapsed < REPLY_TIMEOUT_S + 1.0
    err = capsys.readouterr().err
    assert "did not answer within 2 s" in err and "busy or hung" in err and "4242" in err


def test_local_only_arguments_never_look_for_an_instance(address):
    fake = FakeInstance(address)
    try:
        assert forward_main(["--smoke-test"]) is None
        assert forward_main(["--version"]) is None
        assert fake.requests == []
    finally:
        fake.close()


def test_the_second_launch_forwards_and_never_imports_the_heavy_stack(address, switchboard_home, tmp_path):
    fake = FakeInstance(address)
    code = (
        "import sys\n"
        "from desktop_app.__main__ import main\n"
        f"rc = main(['--home', {str(switchboard_home)!r}, '--quick', 'notes.txt'])\n"
        f"bad = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(rc, bad)\n"
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    finally:
        fake.close()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0 []"
    [sent] = fake.requests
    assert sent["action"] == "forward"
    assert sent["argv"] == ["--home", str(switchboard_home), "--quick", "notes.txt"]
    assert sent["cwd"] == str(tmp_path)
