"""The share of each request that is a stable prefix of the previous one, over a scripted conversation.

Runs ``switchboard ask --conversation last`` once per turn (one real process each, as a user or a script
would) against the loopback SSE server, every third turn with built-in tool calls (two rounds on every
sixth). Each request is read as the provider's prompt cache sees it: the tool schemas, then the messages in
order. For every request after the first, the stable share is the length of its longest common prefix with
the previous request over its own length. Target: **≥ 95 % on average outside compactions** (exit 1 when
missed). With ``--compact-after N``, ``switchboard compact`` summarises the older turns after turn N; its
summary request and the first request after it (whose history the summary replaced) are left out of the
mean and listed apart. (With ``--compact-after 15`` the mean is ~94.8 %: after a compaction the
conversation is short again, so each new turn is a larger share of its request, as in its first turns.)

The baseline is measured on the same requests: what the share would be had the per-run context (date and
time) been put into the system prompt, as many apps do, instead of at the end of the newest user message.

    .venv/bin/python benchmarks/prompt_prefix.py [--turns 30] [--compact-after N] [--target 95] [--json FILE]
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
from desktop_app.runtime.compaction.plan import SUMMARY_INSTRUCTIONS
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


def is_summary_request(body: dict[str, Any]) -> bool:
    """A compaction's own request (the summariser's instructions, no tools), not a turn of the conversation."""
    first = body["messages"][0] if body["messages"] else {}
    return first.get("role") == "system" and first.get("content") == SUMMARY_INSTRUCTIONS


def run(turns: int, compact_after: int = 0) -> list[dict[str, Any]]:
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
            if compact_after and turn + 1 == compact_after:
                server.enqueue(text_reply(f"Summary of the first {turn - 1} questions and their answers."))
                compact = [base[0], "compact", *base[2:10], "--conversation", "last"]
                done = subprocess.run(compact, capture_output=True, text=True, timeout=120, env=env)
                if done.returncode != 0:
                    raise SystemExit(f"compact failed ({done.returncode}): {done.stderr}")
        return [r.json for r in server.requests]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--compact-after", type=int, default=0, help="compact after this turn (0: never)")
    parser.add_argument("--target", type=float, default=95.0, help="the average stable share, in percent")
    add_json_argument(parser)
    args = parser.parse_args(argv)
    recorded = run(args.turns, args.compact_after)
    summaries = [i for i, body in enumerate(recorded) if is_summary_request(body)]
    bodies = [body for body in recorded if not is_summary_request(body)]
    after_compaction = {i - n for n, i in enumerate(summaries)}  # the first request after each summary
    turn_of: list[int] = []
    turn = -1
    for body in bodies:  # a request whose last message is the user's starts a turn
        turn += body["messages"][-1]["role"] == "user"
        turn_of.append(turn)
    rows: list[tuple[int, float, float | None]] = []  # (request, share, baseline share; None: left out)
    for i in range(1, len(bodies)):
        share = stable_share(prompt_text(bodies[i - 1]), prompt_text(bodies[i]))
        if i in after_compaction:  # the summary replaced the history: not a prefix, by design
            rows.append((i, share, None))
            continue
        before = with_dated_system_prompt(bodies[i - 1], turn_of[i - 1])
        after = with_dated_system_prompt(bodies[i], turn_of[i])
        rows.append((i, share, stable_share(prompt_text(before), prompt_text(after))))
    shares = [share for _, share, base in rows if base is not None]
    baseline = [base for _, _, base in rows if base is not None]
    mean, worst = statistics.mean(shares) * 100, min(shares) * 100
    base_mean = statistics.mean(baseline) * 100
    print(f"{len(bodies)} requests over {args.turns} turns (one process per turn), {len(summaries)} compaction(s)")
    for i, share, base in rows:
        note = f"baseline {base * 100:6.2f} %" if base is not None else "first after a compaction: left out"
        print(f"  request {i + 1:>3}: {share * 100:6.2f} % stable  ({note})")
    print(f"stable prefix: mean {mean:.2f} %, worst {worst:.2f} %; baseline (date in system prompt) {base_mean:.2f} %")
    met = mean >= args.target
    write_rows(
        args.json,
        [
            Row(
                figure=f"stable prompt prefix, {args.turns}-turn conversation (mean share per request)"
                + (f", {len(summaries)} compaction(s) left out" if summaries else ""),
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
