"""FTS5 search over 100,000 stored messages: p50/p95/max per query, against the 50 ms bound.

Builds a temporary store (2,000 conversations × 50 messages of varied chat-like text, with reasoning on
some answers), runs a set of searches through ``Store.search`` (quoted terms, snippets, bm25 order, deleted
conversations filtered) and, as a baseline on the same data, a ``LIKE '%term%'`` scan. Exits 1 when the
p95 of ``Store.search`` exceeds the bound.

    .venv/bin/python benchmarks/fts_search.py [--messages 100000] [--repeat 5] [--bound-ms 50]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._report import Row, add_json_argument, write_rows
from desktop_app.runtime.store import Store

_COMMON_WORDS = (
    "the a to of and in is it you that for on with this be are as can not or have if your by at from an use "
    "will but we my so do what all there when which more one how about out up then them some would like its "
    "just into also than only other new time could first any these may way should because does very well"
)
_COMMON = _COMMON_WORDS.split()
_TOPICAL_WORDS = (
    "python function error install package version server request response token model context window file "
    "folder path config settings json yaml database query index table column migration schema backup restore "
    "thread async await loop event stream socket timeout retry proxy certificate keyring password secret "
    "docker container image build deploy pipeline test fixture mock assert coverage lint format commit branch "
    "merge rebase conflict review release tag changelog license readme docs tutorial example snippet regex "
    "unicode encoding utf8 emoji locale timezone calendar meeting email invoice budget recipe garden weather "
    "travel flight hotel museum lighthouse keeper harbour tide ocean mountain river bicycle guitar piano novel "
    "poem chapter translate summary outline essay paragraph grammar spelling café naïve résumé zürich kraków"
)
_TOPICAL = _TOPICAL_WORDS.split()
_RARE = [f"{stem}{n}" for stem in ("err", "ticket", "build", "sha", "port") for n in range(400)]


def sentence(rng: random.Random) -> str:
    words = []
    for _ in range(rng.randint(6, 18)):
        roll = rng.random()
        if roll < 0.55:
            words.append(rng.choice(_COMMON))
        elif roll < 0.97:
            words.append(rng.choice(_TOPICAL))
        else:
            words.append(rng.choice(_RARE))
    text = " ".join(words)
    return text[0].upper() + text[1:] + rng.choice([".", ".", ".", "?", "!", ":", " — see `config.json`."])


def paragraph(rng: random.Random, sentences: tuple[int, int]) -> str:
    return " ".join(sentence(rng) for _ in range(rng.randint(*sentences)))


def build(store: Store, messages: int, rng: random.Random) -> None:
    per_conversation = 50
    conn = store.connection
    now = time.time()
    with store.transaction():
        message_id = part_id = 0
        for c in range(messages // per_conversation):
            cid = f"conv{c:05d}"
            deleted = now if c % 97 == 0 else None
            conn.execute(
                "INSERT INTO conversations (id, title, created_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, ?)",
                (cid, sentence(rng)[:60], now, now, deleted),
            )
            conn.execute(
                "INSERT INTO runs (id, conversation_id, status, started_at) VALUES (?, ?, 'finished', ?)",
                (cid + "r", cid, now),
            )
            for position in range(per_conversation):
                message_id += 1
                role = "user" if position % 2 == 0 else "assistant"
                conn.execute(
                    "INSERT INTO messages (id, conversation_id, run_id, role, status, position, created_at) "
                    "VALUES (?, ?, ?, ?, 'complete', ?, ?)",
                    (message_id, cid, cid + "r", role, position, now),
                )
                parts = [("text", paragraph(rng, (1, 3) if role == "user" else (3, 9)))]
                if role == "assistant" and rng.random() < 0.3:
                    parts.insert(0, ("reasoning", paragraph(rng, (2, 5))))
                for index, (kind, text) in enumerate(parts):
                    part_id += 1
                    conn.execute(
                        "INSERT INTO parts (id, message_id, position, kind, text) VALUES (?, ?, ?, ?, ?)",
                        (part_id, message_id, index, kind, text),
                    )
                    conn.execute("INSERT INTO parts_fts (rowid, text) VALUES (?, ?)", (part_id, text))
    conn.execute("INSERT INTO parts_fts (parts_fts) VALUES ('optimize')")


QUERIES = [
    "lighthouse",  # topical word
    "migration schema",  # two topical words
    "timeout retry proxy",
    "err17",  # rare token
    "ticket3",  # rare prefix (search as you type)
    "confi",  # common prefix
    "cafe",  # diacritics folded
    "zurich krakow",
    'config.json "quoted" (parens) -minus',  # punctuation-heavy
    "c++ && || :: =>",  # punctuation only except one term
    "xylophoneabsent",  # no hit
    "the",  # the most common word
    "how can you",  # common words together
    "python error install",
]


LIKE_SQL = (
    "SELECT p.id FROM parts p JOIN messages m ON m.id = p.message_id JOIN conversations c ON c.id = m.conversation_id "
    "WHERE p.kind IN ('text', 'reasoning') AND p.text LIKE ? AND c.deleted_at IS NULL LIMIT 50"
)


def like_scan(conn: sqlite3.Connection, term: str) -> list[tuple[int]]:
    return conn.execute(LIKE_SQL, (f"%{term}%",)).fetchall()


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        out.append((time.perf_counter() - started) * 1000)
    return out


def p95_of(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def summary(samples: list[float]) -> str:
    return f"p50 {statistics.median(samples):7.2f} ms  p95 {p95_of(samples):7.2f} ms  max {max(samples):7.2f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--bound-ms", type=float, default=50.0)
    parser.add_argument("--seed", type=int, default=7)
    add_json_argument(parser)
    ns = parser.parse_args(argv)
    rng = random.Random(ns.seed)
    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "bench.db") as store:
        started = time.perf_counter()
        build(store, ns.messages, rng)
        conn = store.connection
        parts = conn.execute("SELECT COUNT(*) FROM parts").fetchone()[0]
        size = (Path(tmp) / "bench.db").stat().st_size + (Path(tmp) / "bench.db-wal").stat().st_size
        version = conn.execute("SELECT sqlite_version()").fetchone()[0]
        built = time.perf_counter() - started
        print(
            f"built {ns.messages:,} messages ({parts:,} parts, {size / 1e6:.0f} MB) in {built:.1f} s; SQLite {version}"
        )
        store.search("warm up the cache")
        fts_all: list[float] = []
        like_all: list[float] = []
        print(f"\n{'query':40} {'hits':>5}  Store.search (FTS5, bm25, snippets)          LIKE '%term%' baseline")
        for query in QUERIES:
            hits = len(store.search(query))
            fts = timed(partial(store.search, query), ns.repeat)
            term = max(query.split(), key=len).strip('"()-')
            like = timed(partial(like_scan, conn, term), ns.repeat)
            fts_all += fts
            like_all += like
            print(f"{query[:40]:40} {hits:5}  {summary(fts)}  {summary(like)}")
        print(f"\n{'all queries':40} {'':5}  {summary(fts_all)}  {summary(like_all)}")
        p95 = p95_of(fts_all)
        verdict = "OK" if p95 <= ns.bound_ms else "FAIL"
        print(f"\nbound: p95 {p95:.2f} ms vs {ns.bound_ms:.0f} ms -> {verdict}")
        like95 = p95_of(like_all)
        write_rows(
            ns.json,
            [
                Row(
                    f"FTS search over {ns.messages:,} messages (p95)",
                    f"{p95:.1f} ms",
                    f"{like95:.1f} ms (LIKE scan)",
                    f"{p95 / like95:.2f}×" if like95 else "—",
                    f"≤ {ns.bound_ms:g} ms",
                    p95 <= ns.bound_ms,
                )
            ],
        )
        return 0 if p95 <= ns.bound_ms else 1


if __name__ == "__main__":
    sys.exit(main())
