"""``tool_search`` latency at 1k, 10k and 100k tools, and the request payload with deferral vs without.

1. **Search latency.** A synthetic catalog per size (servers of 50 tools each, names and descriptions from
   a mix of verbs, nouns and topics, some descriptions long) and a fixed mix of queries in all three forms:
   plain words (``issue``, ``weather forecast``), ``+must extra`` (``+github search``, ``+srv0001 create``),
   regular expressions (``create_.*issue``, ``^mcp__srv00(1|2)``, ``(?:list|get)_files``), an invalid regex
   (``alpha(``, matched as a literal) and ``select:`` with three names. ``Catalog.search`` is timed per query
   (p50/p99 over every query and repetition) against a baseline measured in the same run: the direct port
   (compile the query, ``re.search`` over each name, then each description, per call). The bound is
   **p50 ≤ 2 ms at 10k tools** (exit 1 when missed). Results are checked to equal the baseline's.
2. **Payload.** For each size, the bytes of the ``tools`` array (OpenAI wire format, ``to_wire_tools``) plus
   the system-prompt note, for the first request with deferral (``tool_search`` + 2 pinned tools + the
   capped ``<available-deferred-tools>`` block) and without (every schema).

    .venv/bin/python benchmarks/tool_search.py [--sizes 1000,10000,100000] [--repeat 20] [--bound-ms 2]
                                               [--queries N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._report import Row, add_json_argument, write_rows
from desktop_app.runtime.host.catalog import MAX_SEARCH_RESULTS, Catalog, CatalogEntry, make_entry
from desktop_app.runtime.host.host import HostTool
from desktop_app.runtime.providers.openai_request import to_wire_tools
from desktop_app.runtime.tools.deferral import DeferralSettings, ToolDeferral

VERBS = ("create", "list", "get", "update", "delete", "search", "post", "read", "write", "sync", "close", "merge")
NOUNS = ("issue", "file", "message", "event", "invoice", "page", "branch", "record", "forecast", "ticket", "user")
TOPICS = ("github", "slack", "weather", "calendar", "billing", "docs", "crm", "deploy", "mail", "notes", "jira")
QUERIES = (
    "issue",
    "weather forecast",
    "invoice",
    "+github search",
    "+srv0001 create",
    "+slack",
    "create_.*issue",
    "^mcp__srv00(1|2)",
    "(?:list|get)_files?",
    "alpha(",
    "nothing-matches-this",
)
PROPERTIES = {
    "query": {"type": "string", "description": "What to look for"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "cursor": {"type": "string", "description": "Opaque cursor from the previous page"},
}


def synthetic(size: int, seed: int = 7) -> list[HostTool]:
    rng = random.Random(seed)
    tools: list[HostTool] = []
    for i in range(size):
        server = f"srv{i // 50:04d}"
        topic = TOPICS[(i // 50) % len(TOPICS)]
        name = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}_{i % 50:02d}"
        description = f"{rng.choice(VERBS).title()} a {topic} {rng.choice(NOUNS)}" + (
            " with paging, filters and sorting options." * rng.randint(0, 3)
        )
        schema = {"type": "object", "properties": PROPERTIES, "required": ["query"]}
        tools.append(
            HostTool(
                name=f"mcp__{server}__{name}", server=server, tool=name, description=description, input_schema=schema
            )
        )
    return tools


def baseline_search(entries: tuple[CatalogEntry, ...], query: str) -> list[CatalogEntry]:
    """The direct port: per call, compile and scan every name and description."""
    query = query.strip()
    if query.startswith("select:"):
        wanted = {p.strip() for p in query[7:].split(",") if p.strip()}
        return [e for e in entries if e.name in wanted]
    scored: list[tuple[int, int]] = []
    if query.startswith("+"):
        terms = query.split()
        must, extras = terms[0][1:].lower(), [t.lower() for t in terms[1:]]
        for i, e in enumerate(entries):
            if must in e.name.lower():
                score = 2 + sum(2 if t in e.name.lower() else 1 if t in e.description.lower() else 0 for t in extras)
                scored.append((i, score))
    else:
        try:
            pattern = re.compile(query, re.IGNORECASE)
        except re.error:
            pattern = re.compile(re.escape(query), re.IGNORECASE)
        for i, e in enumerate(entries):
            if pattern.search(e.name):
                scored.append((i, 2))
            elif pattern.search(e.description):
                scored.append((i, 1))
    scored.sort(key=lambda item: -item[1])
    return [entries[i] for i, _ in scored[:MAX_SEARCH_RESULTS]]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def time_search(catalog: Catalog, queries: list[str], repeat: int) -> tuple[list[float], list[float]]:
    ours: list[float] = []
    base: list[float] = []
    for _ in range(repeat):
        for query in queries:
            started = time.perf_counter()
            found = catalog.search(query)
            middle = time.perf_counter()
            expected = baseline_search(catalog.entries, query)
            ended = time.perf_counter()
            if found != expected:
                raise SystemExit(f"results differ from the baseline for {query!r}")
            ours.append((middle - started) * 1000)
            base.append((ended - middle) * 1000)
    return ours, base


class Source:
    def __init__(self, tools: list[HostTool]) -> None:
        self.list = tools

    def tools(self, *, include_excluded: bool = False) -> list[HostTool]:
        return self.list

    async def call(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - not called
        raise NotImplementedError


def payload_bytes(tools: list[HostTool]) -> tuple[int, int, int]:
    search = HostTool(
        name="tool_search",
        server="switchboard.tools",
        tool="tool_search",
        description="Find and load deferred MCP tools.",
        input_schema={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        builtin=True,
        pinned=True,
    )
    pinned = [t.model_copy(update={"pinned": True}) for t in tools[:2]]
    everything = [search, *pinned, *tools[2:]]
    sizes = []
    for mode in ("never", "always"):
        settings = DeferralSettings(mode=mode)  # type: ignore[arg-type]
        view = ToolDeferral(Source(everything), lambda s=settings: s).view("bench")
        body = json.dumps(to_wire_tools(view.tool_specs()), ensure_ascii=False) + view.system_note()
        sizes.append(len(body.encode("utf-8")))
    return sizes[0], sizes[1], len(view.tool_specs())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--bound-ms", type=float, default=2.0, help="p50 bound at 10,000 tools")
    parser.add_argument("--queries", type=int, default=len(QUERIES), help="use the first N queries of the mix")
    add_json_argument(parser)
    args = parser.parse_args(argv)
    rows: list[Row] = []
    sizes = [int(s) for s in args.sizes.split(",")]
    failed = False
    print("tool_search latency (ms per query; baseline: the direct port, same run)")
    print(f"{'tools':>8} {'p50':>8} {'p99':>8} {'base p50':>9} {'base p99':>9}  {'build':>8}")
    for size in sizes:
        tools = synthetic(size)
        started = time.perf_counter()
        catalog = Catalog(make_entry(t.name, t.server, t.description, t.input_schema) for t in tools)
        build_ms = (time.perf_counter() - started) * 1000
        names = catalog.names()
        queries = [*QUERIES[: args.queries], f"select:{names[3]},{names[size // 2]},{names[-1]}"]
        repeat = max(2, args.repeat * 1000 // size) if size > 10_000 else args.repeat
        ours, base = time_search(catalog, queries, repeat)
        p50, p99 = statistics.median(ours), percentile(ours, 0.99)
        base50, base99 = statistics.median(base), percentile(base, 0.99)
        print(f"{size:>8,} {p50:>8.3f} {p99:>8.3f} {base50:>9.3f} {base99:>9.3f}  {build_ms:>6.0f}ms")
        judged = size == 10_000
        rows.append(
            Row(
                figure=f"`tool_search` p50 / p99, {size:,} tools",
                switchboard=f"{p50:.2f} / {p99:.2f} ms",
                baseline=f"{base50:.2f} / {base99:.2f} ms (direct port)",
                ratio=f"{base50 / p50:.1f}x faster" if p50 > 0 else "—",
                budget=f"p50 ≤ {args.bound_ms:g} ms" if judged else "—",
                met=(p50 <= args.bound_ms) if judged else None,
            )
        )
        if judged and p50 > args.bound_ms:
            print(f"  p50 {p50:.3f} ms at 10,000 tools is above the bound of {args.bound_ms} ms")
            failed = True
    print("\nfirst request payload (tools array + system note, bytes)")
    print(f"{'tools':>8} {'no deferral':>14} {'deferral':>10} {'schemas sent':>13} {'ratio':>7}")
    for size in sizes:
        full, deferred, sent = payload_bytes(synthetic(size))
        print(f"{size:>8,} {full:>14,} {deferred:>10,} {sent:>13} {full / deferred:>6.0f}x")
        rows.append(
            Row(
                figure=f"First request's tools + note, {size:,} tools",
                switchboard=f"{deferred / 1024:,.1f} KiB deferred ({sent} schemas)",
                baseline=f"{full / 1024:,.1f} KiB all schemas",
                ratio=f"{full / deferred:,.0f}x smaller",
            )
        )
    write_rows(args.json, rows)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
