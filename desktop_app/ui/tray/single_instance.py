"""The first instance's end of the single-instance channel: a ``QLocalServer`` answering JSON-line requests.

The address and the protocol are ``desktop_app.instance``'s (the stdlib client a second launch uses). A
socket file left by a crashed instance is detected (nobody answers on it) and replaced; a live instance
that won the race is left alone (``claim`` returns ``"taken"`` and the caller forwards to it instead); an
address that cannot be listened on (``"failed"``) leaves the app running without single-instance.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from desktop_app.instance import CONNECT_TIMEOUT_S, pid_file, request

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any]], dict[str, Any]]
MAX_REQUEST_BYTES = 1 << 20


class InstanceServer(QObject):
    """Listens on ``address`` and answers each request line with ``handler(request)`` as one JSON line."""

    def __init__(self, address: str, handler: Handler, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.address = address
        self.handler = handler
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._on_new_connection)
        self._buffers: dict[QLocalSocket, bytes] = {}
        self.replaced_stale = False

    def claim(self) -> str:
        """Become the instance for this address: ``"claimed"``; ``"taken"`` when another live instance
        answers there; ``"failed"`` when the address cannot be listened on (the reason is logged)."""
        try:
            if request({"action": "query"}, self.address, timeout=CONNECT_TIMEOUT_S) is not None:
                return "taken"
        except Exception:  # busy, hung or garbled: it is alive, do not steal its address
            return "taken"
        if os.path.exists(self.address):
            if hasattr(os, "getuid") and os.stat(self.address).st_uid != os.getuid():
                log.error("%s belongs to another user: single-instance is off for this session", self.address)
                return "failed"  # never listen beside (or forward to) another user's socket
            log.warning("replacing a stale single-instance socket left by a crash: %s", self.address)
            self.replaced_stale = True
        QLocalServer.removeServer(self.address)
        if not self.server.listen(self.address):
            log.error("cannot listen on %s: %s", self.address, self.server.errorString())
            return "failed"
        pid_path = pid_file(self.address)
        if pid_path is not None:
            try:
                pid_path.write_text(str(os.getpid()))
            except OSError:
                log.warning("cannot write %s", pid_path)
        log.info("single instance: listening on %s", self.address)
        return "claimed"

    def close(self) -> None:
        if self.server.isListening():
            self.server.close()
            pid_path = pid_file(self.address)
            if pid_path is not None:
                pid_path.unlink(missing_ok=True)

    def _on_new_connection(self) -> None:
        while self.server.hasPendingConnections():
            sock: QLocalSocket | None = self.server.nextPendingConnection()  # Qt gives nullptr when none waits
            if sock is None:
                break
            self._buffers[sock] = b""
            sock.readyRead.connect(lambda s=sock: self._on_ready_read(s))
            sock.disconnected.connect(lambda s=sock: self._forget(s))

    def _forget(self, sock: QLocalSocket) -> None:
        self._buffers.pop(sock, None)
        sock.deleteLater()

    def _on_ready_read(self, sock: QLocalSocket) -> None:
        if sock not in self._buffers:
            return
        data = self._buffers[sock] + bytes(sock.readAll().data())
        if b"\n" not in data:
            if len(data) > MAX_REQUEST_BYTES:
                sock.abort()
                self._buffers.pop(sock, None)
            else:
                self._buffers[sock] = data
            return
        line = data.split(b"\n", 1)[0]
        self._buffers.pop(sock, None)
        reply = self._answer(line)
        sock.write((json.dumps(reply) + "\n").encode())
        sock.flush()
        sock.disconnectFromServer()

    def _answer(self, line: bytes) -> dict[str, Any]:
        try:
            message = json.loads(line)
            if not isinstance(message, dict):
                raise ValueError("a request must be a JSON object")
        except ValueError as exc:
            return {"ok": False, "error": f"bad request: {exc}"}
        try:
            return {"pid": os.getpid(), **self.handler(message)}
        except Exception as exc:  # a failed handler answers with the error, never kills the channel
            log.exception("single-instance request failed")
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
