"""One headless prompt with one stdio tool call: ``switchboard ask`` against a peer MCP host, side by side.

The peer is mcp-cli 0.20.1 from PyPI (``_peer_install.py``: its own venv under ``.bench-peers/``, installed
on the first full run). Both sides get the same prompt, the same loopback model (``tests/support/llm_server.py``
scripted with the same two replies: a call of the ``echo`` tool, then a short streamed answer), the same stdio
tool server (``_echo_server.py`` on this interpreter) and a fresh home each run; they alternate, after one
untimed run each (page cache). A run counts only if it exits 0, the model's second request carries the tool's
result (``hi``) and the answer reaches stdout.

Measured per run: wall time from spawn to exit, the host process's peak RSS (``ru_maxrss`` from
``os.wait4``: exact, the host alone) and the peak RSS of its whole process tree, stdio server included
(``/proc`` sampled every 10 ms). Informational: the issue sets no budget on the ratio.

How the peer is driven: mcp-cli's one-shot ``cmd`` mode fails in 0.20.1 with any provider (it passes
``model=`` to a client that sets it too: "got multiple values for keyword argument 'model'"), so its
``chat`` mode reads the prompt and ``/exit`` from a pipe; its chat requests ignore ``--api-base`` and use
the OpenAI client's default, so ``OPENAI_BASE_URL`` points it at the loopback server too.

    .venv/bin/python benchmarks/peer_ask.py [--runs 5]
    .venv/bin/python benchmarks/peer_ask.py --tiny     # skipped: no peer install in make test
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._bytecode import compile_app  # noqa: E402
from benchmarks._peer_install import PACKAGE, VERSION, ensure_peer  # noqa: E402
from benchmarks._report import Row, add_json_argument, spread, write_rows  # noqa: E402
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply  # noqa: E402

SWITCHBOARD = Path(sys.executable).with_name("switchboard")
ECHO = ROOT / "benchmarks" / "_echo_server.py"
ANSWER = "Done: hi."
FIGURE = f"one headless prompt with one stdio tool call: `switchboard ask` vs {PACKAGE} {VERSION}"


@dataclass(frozen=True)
class Sample:
    wall: float  # seconds, spawn to exit
    host_mb: float  # the host process's peak RSS (ru_maxrss)
    tree_mb: float  # the process tree's peak RSS, sampled


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree_rss_kb(root: int) -> int:
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += _rss_kb(pid)
        todo.extend(_children(pid))
    return total


def timed(argv: list[str], env: dict[str, str], cwd: Path, stdin: str) -> tuple[Sample, str, str]:
    """Run ``argv`` to its end; wall time, host peak (wait4) and the tree's sampled peak RSS."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd, text=True
    )
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.01):
            peak[0] = max(peak[0], _tree_rss_kb(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out_parts: list[str] = []
    err_parts: list[str] = []
    readers = [
        threading.Thread(target=lambda: out_parts.append(proc.stdout.read() if proc.stdout else "")),
        threading.Thread(target=lambda: err_parts.append(proc.stderr.read() if proc.stderr else "")),
    ]
    for reader in readers:
        reader.start()
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    sampler.join()
    for reader in readers:
        reader.join()
    out, err = "".join(out_parts), "".join(err_parts)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} exited {proc.returncode}: {err[-2000:]}")
    return Sample(wall, usage.ru_maxrss / 1024, peak[0] / 1024), out, err


def _check(llm: ScriptedLLMServer, first: int, out: str, who: str) -> None:
    posts = llm.requests[first:]
    if len(posts) != 2:
        raise SystemExit(f"{who}: {len(posts)} model requests, expected 2 (tool call, then the answer)")
    tool_messages = [m for m in posts[1].json.get("messages", []) if m.get("role") == "tool"]
    if not any("hi" in json.dumps(m.get("content")) for m in tool_messages):
        raise SystemExit(f"{who}: the tool's result did not reach the model: {tool_messages}")
    if ANSWER not in out:
        raise SystemExit(f"{who}: the answer is not on stdout: {out[-1000:]}")


def run_switchboard(llm: ScriptedLLMServer, folder: Path, config: Path, env: dict[str, str]) -> Sample:
    llm.enqueue(tool_call_reply([("c1", "mcp__echo__echo", {"text": "hi"})]), text_reply(ANSWER))
    home = Path(tempfile.mkdtemp(dir=folder))
    argv = [str(SWITCHBOARD), "ask", "--home", str(home), "--base-url", llm.url, "--model", "m"]
    argv += ["--approve", "always", "--mcp-config", str(config), "Go."]
    first = len(llm.requests)
    sample, out, _ = timed(argv, env, home, "")
    _check(llm, first, out, "switchboard ask")
    return sample


def run_peer(peer: Path, llm: ScriptedLLMServer, folder: Path, config: Path, env: dict[str, str]) -> Sample:
    llm.enqueue(tool_call_reply([("c1", "echo", {"text": "hi"})]), text_reply(ANSWER))
    home = Path(tempfile.mkdtemp(dir=folder))
    argv = [str(peer), "chat", "--config-file", str(config), "--server", "echo", "--provider", "openai"]
    argv += ["--model", "m", "--api-base", llm.url, "--api-key", "x", "--confirm-mode", "never"]
    peer_env = {**env, "HOME": str(home), "OPENAI_API_KEY": "x", "OPENAI_BASE_URL": llm.url, "NO_COLOR": "1"}
    first = len(llm.requests)
    sample, out, _ = timed(argv, peer_env, home, "Go.\n/exit\n")
    _check(llm, first, out, PACKAGE)
    return sample


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tiny", action="store_true", help="skip (no peer install in make test)")
    add_json_argument(parser)
    ns = parser.parse_args(argv)
    if ns.tiny:
        print(f"peer row skipped in --tiny: {PACKAGE} is installed and run only by `make bench`")
        write_rows(ns.json, [Row(FIGURE, "skipped in --tiny", note="no peer install in make test")])
        return 0
    compile_app()
    peer = ensure_peer()
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    with ScriptedLLMServer() as llm, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = folder / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"echo": {"command": sys.executable, "args": [str(ECHO)]}}}))
        run_switchboard(llm, folder, config, env)  # untimed: page cache
        run_peer(peer, llm, folder, config, env)
        ours: list[Sample] = []
        theirs: list[Sample] = []
        for _ in range(ns.runs):
            ours.append(run_switchboard(llm, folder, config, env))
            theirs.append(run_peer(peer, llm, folder, config, env))
    wall, peer_wall = [s.wall for s in ours], [s.wall for s in theirs]
    host, peer_host = [s.host_mb for s in ours], [s.host_mb for s in theirs]
    tree, peer_tree = [s.tree_mb for s in ours], [s.tree_mb for s in theirs]
    med = statistics.median
    print(f"one prompt, one stdio tool call, {ns.runs} alternating runs each (median, min–max):")
    for name, got in (("switchboard ask", ours), (f"{PACKAGE} {VERSION}", theirs)):
        walls, hosts, trees = [s.wall for s in got], [s.host_mb for s in got], [s.tree_mb for s in got]
        print(f"  {name:<16} wall {spread(walls, ' s')}  host peak {spread(hosts, ' MB', 1)}", end="")
        print(f"  tree {spread(trees, ' MB', 1)}")
    write_rows(
        ns.json,
        [
            Row(
                FIGURE + ": wall time (median)",
                f"{med(wall):.2f} s",
                f"{med(peer_wall):.2f} s ({PACKAGE} {VERSION}, same model, same server, alternating)",
                f"{med(peer_wall) / med(wall):.1f}× faster",
            ),
            Row(
                FIGURE + ": peak RSS (median)",
                f"{med(host):.0f} MB (tree with the server {med(tree):.0f} MB)",
                f"{med(peer_host):.0f} MB (tree {med(peer_tree):.0f} MB)",
                f"{med(host) / med(peer_host):.2f}× the peer's",
            ),
        ],
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
