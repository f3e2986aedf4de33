"""The share of each request that is a stable prefix of the previous one, over a scripted conversation.

Runs ``switchboard ask --conversation last`` once per turn (one real process each, as a user or a script
would) against the loopback SSE server, every third turn with built-in tool calls (two rounds on every
sixth). Each request is read as the provider's prompt cache sees it: the tool schemas, then the messages in
order. For every request after the first, the stable share is the length of its longest common prefix with
the previous request over its own length. Target: **≥ 95 % on average** (exit 1 when missed).

The baseline is measured on the same requests: what the share would be had the per-run context (date and
time) been put into the system prompt, as many apps do, instead of at the end of the newest user message.

    .venv/bin/python benchmarks/prompt_prefix.py [--turns 30] [--target 95] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._report import Row, add_json_argument, write_rows
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")


def script_turn(server: ScriptedLLMServer, turn: int) -> None:
    if turn % 3 == 0:
        server.enqueue(tool_call_reply([(f"call_{turn}_a", "current_time", {})], reasoning=f"Clock {turn}."))
        if turn % 6 == 0:
            server.enqueue(tool_call_reply([(f"call_{turn}_b", "system_info", {})]))
    answer = f"Answer number {turn}: " + "a plausible paragraph of text. " * (3 + turn % 5)
    server.enqueue(text_reply(answer, reasoning=f"Thinking about {turn}."))


def prompt_text(body: dict[str, Any]) -> list[str]:
    """The request as a cache sees it: the tools, then each message (canonical JSON)."""
    return [json.dumps(body.get("tools", []), sort_keys=True)] + [
        json.dumps(m, sort_keys=True, ensure_ascii=False) for m in body["messages"]
    ]


def common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def stable_share(before: list[str], after: list[str]) -> float:
    """The share of ``after`` (in characters) that repeats ``before`` from the start."""
    a, b = "\x1e".join(before), "\x1e".join(after)
    return common_prefix(a, b) / max(1, len(b))


def with_dated_system_prompt(body: dict[str, Any], turn: int) -> dict[str, Any]:
    """The baseline: the per-run date and time in a system prompt at the front."""
    stamp = f"<context>\ndate: 2026-12-01 {9 + turn // 60:02d}:{turn % 60:02d}\n</context>"
    messages = [{"role": "system", "content": f"You are a helpful assistant.\n{stamp}"}, *body["messages"]]
    return {**body, "messages": messages}


def run(turns: int) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer() as server:
        home = Path(tmp) / "home"
        base = [SWITCHBOARD, "ask", "--home", str(home), "--base-url", server.url, "--dialect", "deepseek"]
        base += ["--model", "deepseek-chat", "--approve", "always"]
        for turn in range(turns):
            script_turn(server, turn)
            more = ["--conversation", "last"] if turn else []
            proc = subprocess.run(
                [*base, *more, f"Question {turn}: what about item {turn}?"],
                capture_output=True,
                text=True,
                timeout=120,
                stdin=subprocess.DEVNULL,
                env=env,
            )
            if proc.returncode != 0:
                raise SystemExit(f"turn {turn} failed ({proc.returncode}): {proc.stderr}")
        return [r.json for r in server.requests]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--target", type=float, default=95.0, help="the average stable share, in percent")
    add_json_argument(parser)
    args = parser.parse_args(argv)
    bodies = run(args.turns)
    turn_of: list[int] = []
    turn = -1
    for body in bodies:  # a request whose last message is the user's starts a turn
        turn += body["messages"][-1]["role"] == "user"
        turn_of.append(turn)
    shares, baseline = [], []
    for i in range(1, len(bodies)):
        shares.append(stable_share(prompt_text(bodies[i - 1]), prompt_text(bodies[i])))
        before = with_dated_system_prompt(bodies[i - 1], turn_of[i - 1])
        after = with_dated_system_prompt(bodies[i], turn_of[i])
        baseline.append(stable_share(prompt_text(before), prompt_text(after)))
    mean, worst = statistics.mean(shares) * 100, min(shares) * 100
    base_mean = statistics.mean(baseline) * 100
    print(f"{len(bodies)} requests over {args.turns} turns (one process per turn)")
    for i, share in enumerate(shares, start=1):
        print(f"  request {i + 1:>3}: {share * 100:6.2f} % stable  (baseline {baseline[i - 1] * 100:6.2f} %)")
    print(f"stable prefix: mean {mean:.2f} %, worst {worst:.2f} %; baseline (date in system prompt) {base_mean:.2f} %")
    met = mean >= args.target
    write_rows(
        args.json,
        [
            Row(
                figure=f"stable prompt prefix, {args.turns}-turn conversation (mean share per request)",
                switchboard=f"{mean:.1f} % (worst {worst:.1f} %)",
                baseline=f"{base_mean:.1f} % (date in system prompt)",
                ratio=f"{mean / base_mean:.1f}×" if base_mean else "—",
                budget=f"≥ {args.target:g} %",
                met=met,
            )
        ],
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
