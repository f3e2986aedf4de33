"""One crash trial: the real ``switchboard ask`` streams a long answer into the store and is SIGKILLed.

A first ``switchboard ask`` in the same home finishes a short exchange. A second one gets a long answer that
the loopback server paces (``Pause`` steps between chunks, one longer silence) while recording when it sent
each chunk; at a chosen point (a random chunk, or inside the silence: before or after the recorder's flush
timer fires) the process is killed with SIGKILL. The database is then reopened and checked: integrity ``ok``;
the finished exchange complete; the second prompt complete; the partial answer a chunk-aligned prefix of what
was sent, marked ``interrupted`` by ``mark_interrupted_runs`` (its owner is gone); and every chunk sent more
than ``LAG_BOUND_S`` (250 ms, + ``tolerance``) before the kill stored.
Used by ``tests/integration/test_crash_recovery.py`` and ``benchmarks/crash_stress.py`` (many trials).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from desktop_app.runtime.messages import AssistantMessage
from desktop_app.runtime.store import DB_FILENAME, Store
from tests.support.llm_server import DONE, Pause, Reply, ScriptedLLMServer, Step, Write, chunk, text_reply

SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")
LAG_BOUND_S = 0.25
"""Stored text is never more than this much of the stream behind (the recorder flushes every FLUSH_INTERVAL_S)."""
FIRST_PROMPT, SECOND_PROMPT = "Say hello briefly.", "Now tell me a long story about lighthouses."
SHORT_ANSWER = "Hello! Short and complete."
_VOCABULARY = (
    "the keeper climbed spiral stairs each evening to trim the wick while storms rolled in from the grey "
    "northern sea gulls wheeled above rocks and fishing boats counted the flashes to find their harbour "
    "before dawn lamp oil brass lens clockwork fog horn tide chart ledger café naïve résumé 42 % & <tags> "
)
_WORDS = _VOCABULARY.split()


def long_answer(rng: random.Random, words: int = 420) -> str:
    out = []
    for i in range(words):
        word = rng.choice(_WORDS)
        out.append(word.capitalize() if i % 13 == 0 else word)
        if i % 13 == 12:
            out[-1] += "."
    return " ".join(out)


def paced_reply(text: str, *, piece: int, pause: float, long_pause_after: int, long_pause: float) -> Reply:
    """Content chunks of ``piece`` characters, ``pause`` apart, with one ``long_pause`` after chunk N."""
    steps: list[Step] = []
    pieces = [text[i : i + piece] for i in range(0, len(text), piece)]
    for n, part in enumerate(pieces, 1):
        steps.append(chunk(content=part))
        steps.append(Pause(long_pause if n == long_pause_after else pause))
    steps += [chunk(finish_reason="stop"), DONE]
    return Reply(steps=steps)


def content_of(data: bytes) -> str | None:
    text = data.decode()
    if not text.startswith("data: {"):
        return None
    choices = json.loads(text[len("data: ") :]).get("choices") or [{}]
    value = choices[0].get("delta", {}).get("content")
    return value if isinstance(value, str) else None


@dataclass
class TrialResult:
    problems: list[str] = field(default_factory=list)
    kill_after_s: float = 0.0  # from the first chunk of the long answer to the kill
    lag_s: float = 0.0  # age at the kill of the oldest sent chunk that was not stored (0 if none)
    stored_chars: int = 0
    sent_chars: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


def run_trial(
    workdir: Path,
    rng: random.Random,
    *,
    piece: int = 24,
    pause: float = 0.015,
    long_pause: float = 0.45,
    tolerance: float = 0.0,
    in_silence: float | None = None,
) -> TrialResult:
    """``in_silence``: kill this many seconds into the long silence (e.g. inside the flush timer's window, or
    just after it); ``None``: at a random chunk, a random fraction of a pause after it."""
    result = TrialResult()
    text = long_answer(rng)
    n_chunks = -(-len(text) // piece)
    long_after = n_chunks // 2
    if in_silence is not None:
        kill_chunk, kill_delay = long_after, in_silence
    else:
        kill_chunk = rng.randrange(1, n_chunks - 1)
        kill_delay = rng.uniform(0, long_pause if kill_chunk == long_after else pause)
    killed_at: list[float] = []
    proc_box: list[subprocess.Popen[str]] = []
    timers: list[threading.Timer] = []
    seen = [0]

    def kill() -> None:
        killed_at.append(time.monotonic())
        os.kill(proc_box[0].pid, signal.SIGKILL)

    def on_write(write: Write) -> None:
        if write.request_index == 1 and content_of(write.data) is not None:
            seen[0] += 1
            if seen[0] == kill_chunk:
                timer = threading.Timer(kill_delay, kill)
                timers.append(timer)
                timer.start()

    home = workdir / "home"
    replies = [
        text_reply(SHORT_ANSWER, piece=8),
        paced_reply(text, piece=piece, pause=pause, long_pause_after=long_after, long_pause=long_pause),
    ]
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    with ScriptedLLMServer(replies, on_write=on_write) as llm:
        cmd = [SWITCHBOARD, "ask", "--home", str(home), "--base-url", llm.url, "--model", "m"]
        first = subprocess.run([*cmd, FIRST_PROMPT], env=env, capture_output=True, text=True, timeout=60)
        if first.returncode != 0:
            result.problems.append(f"the first ask failed (exit {first.returncode}): {first.stderr[-2000:]}")
            return result
        with subprocess.Popen(
            [*cmd, SECOND_PROMPT], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        ) as proc:
            proc_box.append(proc)
            try:
                _, stderr = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, stderr = proc.communicate()
                result.problems.append("the driver hung")
            for timer in timers:
                timer.join()
        writes = [(w.at, c) for w in llm.writes if w.request_index == 1 and (c := content_of(w.data)) is not None]
    if proc.returncode != -signal.SIGKILL or not killed_at:
        result.problems.append(f"the driver was not killed (exit {proc.returncode}): {stderr[-2000:]}")
        return result
    _check_database(home / "data" / DB_FILENAME, text, writes, killed_at[0], tolerance, result)
    return result


def _check_database(
    path: Path, text: str, writes: list[tuple[float, str]], kill: float, tolerance: float, result: TrialResult
) -> None:
    problems = result.problems
    sent = [(at, c) for at, c in writes if at <= kill]
    result.sent_chars = sum(len(c) for _, c in sent)
    result.kill_after_s = kill - writes[0][0] if writes else 0.0
    with Store(path) as store:
        if (check := store.integrity_check()) != "ok":
            problems.append(f"integrity_check: {check}")
        by_title = {c.title: c for c in store.list_conversations()}
        done, conversation = by_title.get(FIRST_PROMPT), by_title.get(SECOND_PROMPT)
        if done is None or conversation is None:
            problems.append(f"conversations missing: {sorted(by_title)}")
            return
        finished = [(m.role, m.status, m.text_of("text")) for m in store.messages(done.id)]
        if finished != [("user", "complete", FIRST_PROMPT), ("assistant", "complete", SHORT_ANSWER)]:
            problems.append(f"the finished exchange is wrong: {finished}")
        messages = store.messages(conversation.id)
        head = [(m.role, m.status, m.text_of("text")) for m in messages[:1]]
        if head != [("user", "complete", SECOND_PROMPT)]:
            problems.append(f"the second prompt is wrong: {head}")
        partial = messages[1] if len(messages) > 1 else None
        stored = partial.text_of("text") if partial else ""
        result.stored_chars = len(stored)
        if partial is not None and partial.status != "streaming":
            problems.append(f"partial message status before recovery: {partial.status}")
        if not text.startswith(stored) or len(stored) > result.sent_chars:
            problems.append("stored partial text is not a prefix of what was sent")
        covered, total = 0, 0
        for _, piece in sent:
            if total + len(piece) > len(stored):
                break
            total += len(piece)
            covered += 1
        if covered < len(sent):
            result.lag_s = kill - sent[covered][0]
            if result.lag_s > LAG_BOUND_S + tolerance:
                problems.append(f"stored text is {result.lag_s * 1000:.0f} ms behind the kill")
        if store.mark_interrupted_runs() != 1:
            problems.append("mark_interrupted_runs did not find exactly one live run")
        statuses = [r.status for c in (done, conversation) for r in store.runs(c.id).values()]
        if statuses != ["finished", "interrupted"]:
            problems.append(f"run statuses after recovery: {statuses}")
        after = store.messages(conversation.id)
        if partial is not None:
            if after[1].status != "interrupted" or after[1].text_of("text") != stored:
                problems.append("the partial message was not kept as interrupted")
            model = store.load_messages(conversation.id)
            if model[-1] != AssistantMessage(content=stored):
                problems.append(f"load_messages does not end with the partial answer: {model[-1]!r}")
