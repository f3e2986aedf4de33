"""``switchboard serve`` for the conformance suite's server scenarios, with the bearer check left out.

The suite (``@modelcontextprotocol/conformance server``, checked at 0.2.0-alpha.11) has no option to send a
header or a token (``conformance server --help``: ``--url``, ``--scenario``, ``--suite``,
``--expected-failures``, ``-o``, ``--spec-version``, ``--force``, ``--requirements``, ``--verbose``), so
this runs ``desktop_app.cli.serve.serve_command`` itself, the code path of ``switchboard serve``, with
``auth=False``, the one difference: the assembled host in a fresh home, ``HttpHostService``, the agents'
``chat-with-*`` tools, the resources and their subscriptions, the client recorder, the SDK's streamable
HTTP app (with its DNS-rebinding guard), bound to 127.0.0.1. Approvals: ``never`` (no model is configured).

    python -m tests.conformance.serve_host PORT      # prints the URL once it listens
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile

from desktop_app.cli.serve import serve_command


async def main(port: int) -> int:
    with tempfile.TemporaryDirectory() as home:
        ns = argparse.Namespace(port=port, home=home, token_env=None, approve="never")
        return await serve_command(ns, sys.stdout, sys.stderr, auth=False)


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 0)))
