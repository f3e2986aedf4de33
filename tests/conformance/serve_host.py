"""The served host (``desktop_app.runtime.http_host``) without the bearer check, for the conformance suite's
server scenarios (the suite cannot send a token). Everything else is what ``switchboard serve`` runs: the
assembled host in a fresh home, the agents' ``chat-with-*`` tools, the resources, the SDK's streamable HTTP
app (with its DNS-rebinding guard), bound to 127.0.0.1. Approvals: ``never`` (no model is configured).

    python -m tests.conformance.serve_host PORT      # prints the URL once it listens
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

import uvicorn

from desktop_app.assembly import assemble
from desktop_app.paths import AppPaths
from desktop_app.runtime.approvals import ApprovalPolicy
from desktop_app.runtime.http_host import LOOPBACK, MCP_PATH, bind_loopback, make_http_host


async def main(port: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = AppPaths(Path(tmp) / "config", Path(tmp) / "data", Path(tmp) / "logs").ensure()
        built = assemble(paths, strict=True, policy=ApprovalPolicy("never"), serve_default_agent=True)
        try:
            await built.host.start()
            catalog = built.runtime.agents
            assert catalog is not None
            server = make_http_host(built.host, catalog, built.runtime.policy, None, runtime=built.runtime)
            app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=LOOPBACK)
            sock = bind_loopback(port)
            print(f"http://{LOOPBACK}:{sock.getsockname()[1]}{MCP_PATH}", flush=True)
            await uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2)).serve(
                sockets=[sock]
            )
        finally:
            await built.aclose()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
