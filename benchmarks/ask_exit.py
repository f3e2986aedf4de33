"""How long ``switchboard ask`` runs after its answer ends, with one stdio MCP server (budget 150 ms).

Each run is the console script against the loopback LLM server (``tests/support/llm_server.py``): the model
calls the server's ``echo`` tool, then streams a short answer. The clock starts when the ``run_finished``
event line is read from the child's stdout (``--events jsonl``) and stops when the process has exited
(``wait``): closing the server, the store and the interpreter. The baseline, alternating in the same run, is
the same call with no MCP server (only the built-ins). Every run must exit 0 and leave no server process
behind (looked up by a per-run tag on its command line).

    .venv/bin/python benchmarks/ask_exit.py [--runs 10] [--budget-ms 150]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._bytecode import compile_app  # noqa: E402
from benchmarks._report import Row, add_json_argument, spread, write_rows  # noqa: E402
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply  # noqa: E402

SWITCHBOARD = Path(sys.executable).with_name("switchboard")
ECHO = ROOT / "benchmarks" / "_echo_server.py"


def _left_running(tag: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if tag.encode() in (proc / "cmdline").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


def one_run(llm: ScriptedLLMServer, home: Path, config: Path | None) -> tuple[float, float]:
    """``(run_finished → exit, whole call)`` in seconds, for one ``switchboard ask``."""
    if config is not None:
        llm.enqueue(tool_call_reply([("c1", "mcp__echo__echo", {"text": "hi"})]), text_reply("Done: hi."))
    else:
        llm.enqueue(text_reply("Done."))
    argv = [str(SWITCHBOARD), "ask", "--home", str(home), "--base-url", llm.url, "--model", "m"]
    argv += ["--approve", "always", "--events", "jsonl"]
    if config is not None:
        argv += ["--mcp-config", str(config)]
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    started = time.perf_counter()
    proc = subprocess.Popen([*argv, "Go."], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None
    finished = None
    answered = False
    for line in proc.stdout:
        event = json.loads(line)
        if event.get("kind") == "run_finished":
            finished = time.perf_counter()
        answered = answered or (event.get("kind") == "tool_result" and not event.get("is_error"))
    code = proc.wait()
    ended = time.perf_counter()
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if code != 0 or finished is None:
        raise SystemExit(f"switchboard ask exited {code} (run_finished seen: {finished is not None}): {stderr}")
    if config is not None and not answered:
        raise SystemExit(f"the echo tool call did not succeed: {stderr}")
    return ended - finished, ended - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--budget-ms", type=float, default=150.0)
    add_json_argument(parser)
    ns = parser.parse_args(argv)
    compile_app()
    with ScriptedLLMServer() as llm, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        exits: list[float] = []
        base_exits: list[float] = []
        calls: list[float] = []
        for index in range(ns.runs):
            tag = f"--bench-tag={uuid.uuid4().hex}"
            config = folder / f"mcp{index}.json"
            server = {"command": sys.executable, "args": [str(ECHO), tag]}
            config.write_text(json.dumps({"mcpServers": {"echo": server}}))
            after, whole = one_run(llm, folder / f"home{index}", config)
            exits.append(after)
            calls.append(whole)
            leftover = _left_running(tag)
            if leftover:
                raise SystemExit(f"the stdio server outlived switchboard ask: pids {leftover}")
            base_exits.append(one_run(llm, folder / f"base{index}", None)[0])
    ms = [1000 * v for v in exits]
    base_ms = [1000 * v for v in base_exits]
    median, base = statistics.median(ms), statistics.median(base_ms)
    met = median <= ns.budget_ms
    print(f"switchboard ask, {ns.runs} runs each, run_finished → process exit:")
    print(f"  one stdio server   {spread(ms, ' ms', 0)}   ({'ok' if met else 'OVER'} the {ns.budget_ms:g} ms budget)")
    print(f"  no MCP server      {spread(base_ms, ' ms', 0)}")
    print(f"  whole call with the server: {spread(calls, ' s')}; no server left running after any run")
    write_rows(
        ns.json,
        [
            Row(
                "`switchboard ask` with one stdio server: run_finished → process exit (median)",
                f"{median:.0f} ms",
                f"{base:.0f} ms (the same call with no MCP server)",
                f"{median - base:+.0f} ms",
                f"≤ {ns.budget_ms:g} ms",
                met,
                note=f"whole call {statistics.median(calls):.2f} s",
            )
        ],
    )
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
