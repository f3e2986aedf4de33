#!/usr/bin/env python3
"""A loopback receiver for an http audit hook: appends every hook payload it receives to a JSONL file.

    python3 audit_receiver.py --port 8765 --log ~/switchboard-audit.jsonl

and in settings.json:

    "hooks": {"PostToolUse": [{"type": "http", "url": "http://127.0.0.1:8765/audit",
                               "description": "audit log"}]}

Switchboard POSTs ``{"payload": {...the hook payload...}, "env": {...}}``; this receiver answers
``{"decision": "pass"}`` so the call goes on. It listens on 127.0.0.1 only. ``--port 0`` picks a free
port; the chosen URL is printed on the first line of stdout.
"""

from __future__ import annotations

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

_lock = threading.Lock()


def make_handler(log: Path) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            try:
                record = json.loads(body)
            except ValueError:
                self.send_response(400)
                self.end_headers()
                return
            with _lock, log.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record.get("payload", record), ensure_ascii=False) + "\n")
            answer = b'{"decision": "pass"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--log", type=Path, default=Path("switchboard-audit.jsonl"))
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.log.expanduser()))
    print(f"http://127.0.0.1:{server.server_address[1]}/audit", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
