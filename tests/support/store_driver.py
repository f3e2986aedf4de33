"""A stand-in for ``switchboard ask`` with the store attached, for the crash tests.

It builds the Runtime the way ``cli._ask`` does (settings and MCP config under ``--home``), opens the store
at ``store_path(paths)``, marks interrupted runs, attaches the recorder and runs each PROMPT in turn in one
conversation. It exists so that the crash test does not depend on the wiring in ``cli.py``::

    python -m tests.support.store_driver --home DIR --base-url URL [--model NAME] PROMPT [PROMPT ...]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from desktop_app.paths import app_paths
from desktop_app.runtime.approvals import ApprovalPolicy
from desktop_app.runtime.settings import infer_dialect, load_settings
from desktop_app.runtime.store import Store, attach_store, store_path


async def drive(home: Path, base_url: str, model: str, prompts: Sequence[str]) -> int:
    from desktop_app.runtime.host import Host
    from desktop_app.runtime.host.config import load_mcp_config
    from desktop_app.runtime.service import Runtime

    paths = app_paths(home).ensure()
    settings = load_settings(paths.settings_file)
    provider = settings.provider.model_copy(
        update={"base_url": base_url, "model": model, "dialect": infer_dialect(base_url)}
    )
    host = Host(load_mcp_config(paths.mcp_config_file))
    runtime = Runtime(
        settings=settings.model_copy(update={"provider": provider}), host=host, policy=ApprovalPolicy("never")
    )
    store = Store.open(store_path(paths))
    store.mark_interrupted_runs()
    recorder = attach_store(runtime, store)
    try:
        await host.start()
        conversation = runtime.new_conversation()
        for prompt in prompts:
            outcome = await runtime.run(conversation, prompt)
            print(f"{outcome.status}: {len(outcome.content)} chars", flush=True)
            if outcome.status != "finished":
                return 1
    finally:
        await runtime.aclose()
        recorder.close()
        store.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", default="test-model")
    parser.add_argument("prompts", nargs="+", metavar="PROMPT")
    ns = parser.parse_args(argv)
    return asyncio.run(drive(ns.home, ns.base_url, ns.model, ns.prompts))


if __name__ == "__main__":
    sys.exit(main())
