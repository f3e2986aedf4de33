"""Live-Markdown streaming cost in the real window: ContentDelta → controller → view, against raw appends.

A 20,000-token answer of LLM-like markdown (headings, paragraphs with bold/italic/inline code/links, bullet
and numbered lists, fenced code, tables; ~4 characters per token) streams at full speed (``--rate 0``)
through two paths, offscreen, in the same process, one after the other, each in a fresh 980×760 window:

* **app**: a ``MainWindow`` attached to the test suite's ``FakeRuntime``; each token is a prebuilt
  ``ContentDelta`` handed to the runtime's listeners (the ``ChatController``, which buffers it and flushes
  to ``ChatView`` → ``AnswerBlock`` on its 30 ms timer), then ``processEvents()`` (timers, layout, paint).
  The answer is live Markdown (``markdown_view``): finished blocks are written once, the open last block
  again on every flush. ``RunFinished`` writes the last block once more, as written ("final").
* **baseline**: a bare ``QTextBrowser`` in a ``QMainWindow``; each token is one ``QTextCursor.insertText``
  at the end, scroll to the bottom, ``processEvents()`` (STACK-NOTES §7 "append raw token": the cheapest
  live view there is, and unformatted); its final render is one ``setMarkdown`` of the whole text.

Bounds (exit 1 when missed), for the app: the mean cost per token over the last quarter of the stream is at
most ``--max-growth`` (default 1.5) × that over the first quarter (the cost does not grow with the answer), and
the longest main-thread stall (one step, or the final write) is under 16 ms (one frame).

    .venv/bin/python benchmarks/stream_render.py [--tokens 20000] [--rate 0] [--max-growth 1.5]
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before any QApplication exists

import argparse
import asyncio
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import qasync
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QMainWindow, QTextBrowser

from benchmarks._report import Row, add_json_argument, write_rows
from desktop_app.runtime import events as ev
from desktop_app.ui.asyncqt import freeze_startup_objects, install_asyncgen_hooks
from desktop_app.ui.chat.blocks import AnswerBlock
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fake_runtime import FakeRuntime

FRAME_MS = 16.0
# Each step is timed in the main thread's CPU time: that is the work the step makes the UI thread do, and
# it is the same on a loaded machine (wall time there also counts the other processes' turns on the CPU).
# ``--clock wall`` times wall-clock instead.
CLOCK = time.thread_time
WINDOW_SIZE = (980, 760)
TAIL = 500

_WORD_TEXT = (
    "the model returns a stream of tokens and the window appends each one to the answer while the user reads "
    "configuration server request response function value error retry timeout cache index query file folder "
    "you can use this option to set how many items are kept in memory before they are written to disk which "
    "makes it faster but also means that a crash may lose the last few changes unless you call flush first"
)
_WORDS = _WORD_TEXT.split()
_CODE = [
    "def load(path: Path) -> dict[str, Any]:",
    '    """Read the settings file, or return the defaults."""',
    "    if not path.exists():",
    "        return dict(DEFAULTS)",
    '    with path.open(encoding="utf-8") as handle:',
    "        data = json.load(handle)",
    "    for key, value in DEFAULTS.items():",
    "        data.setdefault(key, value)  # keep old files working",
    "    return data",
]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 20))]
    for _ in range(rng.randint(0, 2)):
        i = rng.randrange(len(words))
        words[i] = rng.choice(["**{}**", "*{}*", "`{}`", "[{}](https://example.com/docs)"]).format(words[i])
    text = " ".join(words)
    return text[0].upper() + text[1:] + rng.choice([".", ".", ",", ":", "?"])


def markdown_answer(min_chars: int, seed: int = 7) -> str:
    """LLM-like markdown of at least ``min_chars`` characters."""
    rng = random.Random(seed)
    parts: list[str] = []
    section = 0
    while sum(map(len, parts)) < min_chars:
        section += 1
        parts.append(f"## {section}. {_sentence(rng).rstrip('.,:?')}\n\n")
        for _ in range(rng.randint(1, 3)):
            parts.append(" ".join(_sentence(rng) for _ in range(rng.randint(2, 5))) + "\n\n")
        kind = section % 4
        if kind == 0:
            parts.extend(f"- {_sentence(rng)}\n" for _ in range(rng.randint(3, 6)))
        elif kind == 1:
            parts.extend(f"{n}. {_sentence(rng)}\n" for n in range(1, rng.randint(3, 6)))
        elif kind == 2:
            parts.append("```python\n" + "\n".join(_CODE[: rng.randint(4, len(_CODE))]) + "\n```\n")
        else:
            rows = [f"| {rng.choice(_WORDS)} | {rng.randint(1, 999)} | {_sentence(rng)} |" for _ in range(4)]
            parts.append("| name | size | notes |\n|---|---:|---|\n" + "\n".join(rows) + "\n")
        parts.append("\n")
    return "".join(parts)


_TOKEN = re.compile(r" ?[A-Za-z]{1,6}| ?\d{1,3}| ?[^\sA-Za-z\d]|\n+| +")


def tokens_of(count: int) -> list[str]:
    """``count`` BPE-like tokens (~4 characters each) of a markdown answer."""
    chars = count * 5
    while True:
        tokens = _TOKEN.findall(markdown_answer(chars))
        if len(tokens) >= count:
            return tokens[:count]
        chars *= 2


@dataclass
class Result:
    steps_ms: list[float]
    flush_steps_ms: list[float]
    flushes: int
    final_ms: float
    wall_s: float

    @property
    def mean(self) -> float:
        return statistics.fmean(self.steps_ms)

    @property
    def start_mean(self) -> float:
        return statistics.fmean(self.steps_ms[: max(1, len(self.steps_ms) // 4)])

    @property
    def end_mean(self) -> float:
        return statistics.fmean(self.steps_ms[-max(1, len(self.steps_ms) // 4) :])

    @property
    def longest_stall(self) -> float:
        return max([*self.steps_ms, self.final_ms])

    @property
    def tail_p95(self) -> float:
        return percentile(self.steps_ms[-TAIL:], 95)

    @property
    def tail_max(self) -> float:
        return max(self.steps_ms[-TAIL:])


def percentile(values: list[float], pct: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def paced(count: int, rate: float, step: Callable[[int], bool]) -> tuple[list[float], list[float], float]:
    """Run ``step(i)`` for each token at ``rate`` tokens/s; its duration in ms, and those where it returned True."""
    steps: list[float] = []
    flagged: list[float] = []
    started = time.perf_counter()
    for i in range(count):
        if rate > 0:
            wait = started + i / rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
        t = CLOCK()
        flag = step(i)
        ms = (CLOCK() - t) * 1000
        steps.append(ms)
        if flag:
            flagged.append(ms)
    return steps, flagged, time.perf_counter() - started


def run_app(qapp: QApplication, tokens: list[str], rate: float) -> Result:
    runtime = FakeRuntime()
    window = MainWindow()
    window.resize(*WINDOW_SIZE)
    controller = window.attach_runtime(runtime)
    window.show()
    qapp.processEvents()
    ids = {"conversation_id": controller.conversation_id, "run_id": "bench"}
    deltas = [ev.ContentDelta(**ids, text=token) for token in tokens]  # built before timing: not UI work
    flushed: list[int] = []
    controller.content_appended.connect(lambda text: flushed.append(len(text)))

    def emit(event: ev.Event) -> None:
        for listener in list(runtime.listeners):
            listener(event)

    window.view.add_user_message("Explain how the settings are stored, with examples.")
    emit(ev.RunStarted(**ids, model="fake-model", prompt="Explain"))
    qapp.processEvents()

    def step(i: int) -> bool:
        before = len(flushed)
        emit(deltas[i])
        qapp.processEvents()
        return len(flushed) != before

    steps, flush_steps, wall = paced(len(tokens), rate, step)
    text = "".join(tokens)
    t = CLOCK()
    emit(ev.RunFinished(**ids, reason="end_turn", content=text))
    qapp.processEvents()
    final_ms = (CLOCK() - t) * 1000
    answer = window.view.last_answer
    while isinstance(answer, AnswerBlock) and answer.pending:  # a burst still being written, frame by frame
        t = CLOCK()
        qapp.processEvents()
        steps.append((CLOCK() - t) * 1000)
    if not isinstance(answer, AnswerBlock) or answer.text != text or not answer.finished:
        raise SystemExit("the answer block does not hold the streamed text")
    if sum(flushed) != len(text):
        raise SystemExit(f"flushed {sum(flushed)} characters, streamed {len(text)}")
    window.close()
    window.deleteLater()
    qapp.processEvents()
    return Result(steps, flush_steps, len(flushed), final_ms, wall)


def run_baseline(qapp: QApplication, tokens: list[str], rate: float) -> Result:
    window = QMainWindow()
    window.resize(*WINDOW_SIZE)
    browser = QTextBrowser()
    window.setCentralWidget(browser)
    window.show()
    qapp.processEvents()
    document = browser.document()
    bar = browser.verticalScrollBar()

    def step(i: int) -> bool:
        cursor = QTextCursor(document)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(tokens[i])
        bar.setValue(bar.maximum())
        qapp.processEvents()
        return True

    steps, _flagged, wall = paced(len(tokens), rate, step)
    text = "".join(tokens)
    if browser.toPlainText() != text:
        raise SystemExit("the baseline browser does not hold the streamed text")
    t = CLOCK()
    browser.setMarkdown(text)
    qapp.processEvents()
    final_ms = (CLOCK() - t) * 1000
    window.close()
    window.deleteLater()
    qapp.processEvents()
    return Result(steps, steps, len(tokens), final_ms, wall)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, nargs="+", default=[20000], help="stream sizes")
    parser.add_argument("--rate", type=float, default=0.0, help="tokens per second (0: full speed)")
    parser.add_argument("--max-growth", type=float, default=1.5, help="end-of-stream over start ms/token")
    parser.add_argument("--clock", choices=["thread", "wall"], default="thread", help="how a step is timed")
    add_json_argument(parser)
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.thread_time if args.clock == "thread" else time.perf_counter
    rows: list[Row] = []

    qapp = QApplication.instance() or QApplication([sys.argv[0]])
    assert isinstance(qapp, QApplication)
    loop = qasync.QEventLoop(qapp, already_running=True)  # as in the UI tests: the window may start tasks
    asyncio.set_event_loop(loop)
    install_asyncgen_hooks(loop)
    ok = True
    try:
        pace = "full speed" if args.rate <= 0 else f"paced at {args.rate:g}/s"
        print(f"offscreen, {WINDOW_SIZE[0]}x{WINDOW_SIZE[1]} windows, tokens {pace}, steps timed in {args.clock} time")
        header = (
            f"{'tokens':>7} {'path':<9} {'chars':>7} {'mean ms/tok':>11} {'first 25%':>9} {' last 25%':>9} "
            f"{'growth':>7} {'flushes':>8} {'flush p95':>9} {'max stall':>9} {'final ms':>9} {'wall s':>7}"
        )
        print(header)
        warm = tokens_of(300)  # untimed: lazy imports (Pygments, the markdown modules), first layouts
        run_baseline(qapp, warm, 0)
        run_app(qapp, warm, 0)
        freeze_startup_objects()  # as the app does once its window is up
        for count in args.tokens:
            tokens = tokens_of(count)
            chars = sum(map(len, tokens))
            base = run_baseline(qapp, tokens, args.rate)
            app = run_app(qapp, tokens, args.rate)
            for name, r in (("baseline", base), ("app", app)):
                print(
                    f"{count:>7} {name:<9} {chars:>7} {r.mean:>11.3f} {r.start_mean:>9.3f} {r.end_mean:>9.3f} "
                    f"{r.end_mean / r.start_mean:>7.2f} {r.flushes:>8} {percentile(r.flush_steps_ms, 95):>9.3f} "
                    f"{r.longest_stall:>9.1f} {r.final_ms:>9.1f} {r.wall_s:>7.1f}"
                )
            growth = app.end_mean / app.start_mean
            print(f"  app vs baseline: {app.mean / base.mean:.2f} x the raw insertText cost per token (for reference)")
            checks = [
                (
                    f"app ms/token last 25% {app.end_mean:.3f} <= {args.max_growth:g} x first 25% "
                    f"{app.start_mean:.3f} (growth {growth:.2f})",
                    growth <= args.max_growth,
                ),
                (
                    f"app longest main-thread stall {app.longest_stall:.1f} ms < {FRAME_MS:g} ms",
                    app.longest_stall < FRAME_MS,
                ),
            ]
            for label, passed in checks:
                print(f"  bound: {label} -> {'OK' if passed else 'MISSED'}")
                ok = ok and bool(passed)
            rows.append(
                Row(
                    f"per-token render cost, end vs start of a {count:,}-token live-Markdown stream; longest stall",
                    f"{growth:.2f}×; stall {app.longest_stall:.1f} ms",
                    f"raw insertText {base.end_mean / base.start_mean:.2f}×; stall {base.longest_stall:.1f} ms",
                    f"{app.mean / base.mean:.2f}× the raw cost per token",
                    f"ratio ≤ {args.max_growth:g}; stall < {FRAME_MS:g} ms",
                    all(bool(passed) for _label, passed in checks),
                )
            )
    finally:
        asyncio.events._set_running_loop(None)
        loop._QEventLoop__is_running = False  # type: ignore[attr-defined]  # see tests/unit/ui/conftest.py
        loop.close()
        asyncio.set_event_loop(None)
    write_rows(args.json, rows)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
