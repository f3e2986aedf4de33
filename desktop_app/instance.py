"""One Switchboard per user and home folder: the tiny client a second launch uses to reach the first.

A second ``switchboard`` must hand its arguments to the running instance and exit fast (budget 200 ms, see
``benchmarks/forward_launch.py``), so this module imports only the standard library: never Qt, pydantic,
the runtime or the MCP stack (``tests/unit/test_instance.py`` checks ``sys.modules``). The first instance
listens on the same address with a ``QLocalServer`` (``desktop_app.ui.tray.single_instance``).

The address is per user and per home folder, so two ``--home`` folders run side by side:

* Unix: a socket file ``switchboard-<hash>.sock`` in ``$XDG_RUNTIME_DIR`` (private to the user), else in
  the temp folder (the server restricts it to the user; a client never talks to a socket another user owns);
* Windows: the named pipe ``\\\\.\\pipe\\switchboard-<hash>``.

The protocol is one JSON line each way::

    {"v": 1, "action": "forward", "argv": [...], "cwd": "/where/it/ran"}  ->  {"ok": true, "pid": 123}
    {"v": 1, "action": "query"}                                          ->  {"ok": true, "pid": ..., ...}

``forward`` returns ``None`` when no instance answers (none runs, or a crashed one left a stale socket
file): the caller then starts the app, which becomes the first instance and replaces the stale file.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing alone costs a few ms per launch
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any

# hashlib (OpenSSL), tempfile and pathlib would add tens of ms to every second launch: the builtin SHA-256
# and os.path do the same here.
if TYPE_CHECKING:
    from hashlib import sha256  # the same interface as the builtin ones, typed
else:
    try:
        from _sha256 import sha256  # CPython 3.11
    except ImportError:  # pragma: no cover - 3.12+
        try:
            from _sha2 import sha256
        except ImportError:
            from hashlib import sha256

PROTOCOL_VERSION = 1
HOME_ENV = "SWITCHBOARD_HOME"  # the same name as desktop_app.paths.HOME_ENV (not imported: it pulls platformdirs)
CONNECT_TIMEOUT_S = 0.5
REPLY_TIMEOUT_S = 2.0
"""How long a running instance may take to answer before the second launch reports it as busy or hung."""

# Arguments a second launch does not forward: they are answered by this process itself.
LOCAL_ONLY = frozenset({"-h", "--help", "--version", "--smoke-test", "--no-single-instance"})


class InstanceBusyError(RuntimeError):
    """A Switchboard instance holds the address but did not answer in time."""

    def __init__(self, address: str, pid: int | None, timeout: float) -> None:
        self.address = address
        self.pid = pid
        self.timeout = timeout
        who = f"Switchboard (process {pid})" if pid else "Switchboard"
        super().__init__(
            f"{who} is already running for this folder but did not answer within {timeout:g} s: it is busy "
            f"or hung. Wait a moment and try again, or end that process{f' (kill {pid})' if pid else ''} and "
            "start Switchboard again."
        )


def home_from_argv(argv: Sequence[str]) -> str | None:
    """The ``--home DIR`` (or ``--home=DIR``) of a command line, without argparse."""
    for i, arg in enumerate(argv):
        if arg == "--home" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--home="):
            return arg.split("=", 1)[1]
    return None


def instance_key(home: str | None = None) -> str:
    """A short hash of the user and the home folder (``--home``, ``$SWITCHBOARD_HOME``, or the default)."""
    root = home if home is not None else os.environ.get(HOME_ENV) or ""
    folder = os.path.realpath(os.path.expanduser(root)) if root else "<platform default>"
    # The numeric uid on Unix (the login name can differ between a terminal and a desktop launcher).
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "")
    digest = sha256(f"{user}\0{folder}".encode()).hexdigest()
    return digest[:16]


def server_address(home: str | None = None) -> str:
    """Where the first instance listens (a socket path on Unix, a pipe name on Windows)."""
    name = f"switchboard-{instance_key(home)}"
    if sys.platform == "win32":
        return rf"\\.\pipe\{name}"
    runtime_dir = os.environ.get("XDG_RUNTIME_DIR")
    temp = os.environ.get("TMPDIR") or "/tmp"
    base = runtime_dir if runtime_dir and os.path.isdir(runtime_dir) else temp
    return os.path.join(base, f"{name}.sock")


def pid_file(address: str) -> Path | None:
    """The file beside a Unix socket that names the owning process (for the busy message)."""
    if sys.platform == "win32":
        return None
    from pathlib import Path

    return Path(address + ".pid")


def _read_pid(address: str) -> int | None:
    if sys.platform == "win32":
        return None
    try:
        with open(address + ".pid", encoding="ascii") as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return None


def _encode(message: dict[str, Any]) -> bytes:
    import json

    return (json.dumps({"v": PROTOCOL_VERSION, **message}) + "\n").encode()


def request(message: dict[str, Any], address: str, *, timeout: float = REPLY_TIMEOUT_S) -> dict[str, Any] | None:
    """Send one request; the reply, or ``None`` when nobody listens. Raises ``InstanceBusyError`` on a timeout."""
    if sys.platform == "win32":
        return _request_pipe(_encode(message), address, timeout)
    try:
        owner = os.stat(address).st_uid
    except OSError:
        return None  # nobody listens (the usual first launch): json and socket are never imported
    if owner != os.getuid():  # another user's socket at this address (the shared temp folder): never talk to it
        return None
    import socket

    data = _encode(message)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT_S)
        try:
            sock.connect(address)
        except (ConnectionRefusedError, FileNotFoundError):
            return None  # a stale socket file left by a crash: nobody listens
        except TimeoutError:
            raise InstanceBusyError(address, _read_pid(address), CONNECT_TIMEOUT_S) from None
        deadline = time.monotonic() + timeout
        try:
            sock.sendall(data)
            buffer = b""
            while b"\n" not in buffer:
                sock.settimeout(max(0.001, deadline - time.monotonic()))
                chunk = sock.recv(65536)
                if not chunk:
                    break
                buffer += chunk
        except TimeoutError:
            raise InstanceBusyError(address, _read_pid(address), timeout) from None
        except (BrokenPipeError, ConnectionResetError):
            return None
    finally:
        sock.close()
    line = buffer.split(b"\n", 1)[0]
    if not line:
        return None
    import json

    reply = json.loads(line)
    return reply if isinstance(reply, dict) else None


def _request_pipe(data: bytes, address: str, timeout: float) -> dict[str, Any] | None:  # pragma: no cover - Windows
    import threading

    try:
        pipe = open(address, "r+b", buffering=0)  # noqa: SIM115 - closed below, from either thread
    except FileNotFoundError:
        return None
    except OSError:  # all pipe instances busy
        raise InstanceBusyError(address, None, CONNECT_TIMEOUT_S) from None
    result: list[bytes] = []

    def talk() -> None:
        try:
            pipe.write(data)
            buffer = b""
            while b"\n" not in buffer:
                chunk = pipe.read(65536)
                if not chunk:
                    break
                buffer += chunk
            result.append(buffer)
        except OSError:
            result.append(b"")

    worker = threading.Thread(target=talk, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise InstanceBusyError(address, None, timeout)
    pipe.close()
    line = result[0].split(b"\n", 1)[0] if result else b""
    import json

    reply = json.loads(line) if line else None
    return reply if isinstance(reply, dict) else None


def should_forward(argv: Sequence[str]) -> bool:
    """Whether a launch with these arguments looks for a running instance (not for --help, --smoke-test…)."""
    return not any(arg in LOCAL_ONLY for arg in argv)


def forward(argv: Sequence[str], *, timeout: float = REPLY_TIMEOUT_S) -> dict[str, Any] | None:
    """Hand ``argv`` to the running instance for this home folder; its reply, or ``None`` if none runs."""
    address = server_address(home_from_argv(argv))
    return request({"action": "forward", "argv": list(argv), "cwd": os.getcwd()}, address, timeout=timeout)


def forward_main(argv: Sequence[str]) -> int | None:
    """For ``__main__``: an exit code when a running instance took the launch (or is hung), else ``None``."""
    if not should_forward(argv):
        return None
    try:
        reply = forward(argv)
    except InstanceBusyError as exc:
        sys.stderr.write(f"switchboard: {exc}\n")
        return 1
    except (OSError, ValueError) as exc:  # an unreadable reply: start normally rather than fail
        sys.stderr.write(f"switchboard: could not reach the running instance ({exc}); starting a new one\n")
        return None
    if reply is None:
        return None
    if not reply.get("ok", False):
        sys.stderr.write(f"switchboard: the running instance refused the request: {reply.get('error', '?')}\n")
        return 1
    return 0
