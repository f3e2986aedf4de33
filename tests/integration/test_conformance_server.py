"""The MCP conformance suite's server scenarios against the served host, for both spec versions.

Starts ``tests/conformance/serve_host.py`` and runs ``conformance server --url …`` from the suite that
``scripts/run-conformance.sh`` installs. The suite cannot send a token (``conformance server --help`` has no
header or token option), so the stand-in runs ``switchboard serve``'s own code path,
``desktop_app.cli.serve.serve_command(…, auth=False)``: everything the real process runs, with only the
bearer check left out (the suite lives in ``.test-servers/conformance/``). The passing checks and scenarios
may not drop below ``tests/conformance/server-baseline.json``, which also explains each failing scenario.
Raise the baseline when more pass; never lower it to make this test green.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
BASELINE = ROOT / "tests" / "conformance" / "server-baseline.json"
BIN = ROOT / ".test-servers" / "conformance" / "node_modules" / ".bin"
SPEC_VERSIONS = ("2025-11-25", "2026-07-28")

if not (BIN / "conformance").exists() or not (BIN / "node").exists():
    if os.environ.get("CI"):
        raise RuntimeError("the conformance suite is not installed: run scripts/run-conformance.sh first")
    pytest.skip("the MCP conformance suite is not installed: run scripts/run-conformance.sh", allow_module_level=True)


def scenario_results(folder: Path) -> dict[str, tuple[int, int]]:
    """Per scenario: (checks passed or warned, checks failed), from the suite's ``checks.json`` files."""
    found: dict[str, tuple[int, int]] = {}
    for run in sorted(folder.glob("server-*")):
        name = re.sub(r"-\d{4}-\d\d-\d\dT.*$", "", run.name.removeprefix("server-"))
        checks = json.loads((run / "checks.json").read_text(encoding="utf-8"))
        passed = sum(1 for c in checks if c.get("status") in ("SUCCESS", "WARNING"))
        failed = sum(1 for c in checks if c.get("status") not in ("SUCCESS", "WARNING", "INFO"))
        found[name] = (passed, failed)
    return found


@pytest.fixture
def url(tmp_path_factory: pytest.TempPathFactory) -> object:  # a fresh host per spec version
    log = tmp_path_factory.mktemp("serve-host") / "stderr.log"  # a file: a full pipe would stall the server
    with log.open("w", encoding="utf-8") as errors:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.conformance.serve_host", "0"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=errors,
            stdin=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"},
        )
        try:
            assert proc.stdout is not None
            line = proc.stdout.readline().strip()
            assert line.startswith("http://127.0.0.1:"), log.read_text(encoding="utf-8")
            yield line
        finally:
            proc.terminate()
            proc.wait(timeout=15)
            if proc.stdout is not None:
                proc.stdout.close()


@pytest.mark.parametrize("version", SPEC_VERSIONS)
def test_server_conformance_does_not_regress(url: str, version: str, tmp_path: Path) -> None:
    completed = subprocess.run(
        [str(BIN / "node"), str(BIN / "conformance"), "server", "--url", url, "--spec-version", version,
         "-o", str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    results = scenario_results(tmp_path)
    assert results, f"the suite ran no scenario:\n{completed.stdout[-3000:]}\n{completed.stderr[-3000:]}"
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))[version]
    regressed = [n for n in baseline["passing_scenarios"] if results.get(n, (0, 1))[1] or not results.get(n, (0,))[0]]
    assert not regressed, f"{version}: scenarios that passed before now fail: {regressed} (see {tmp_path})"
    passed = sum(p for p, _ in results.values())
    failed = sum(f for _, f in results.values())
    assert passed >= baseline["checks_passed"], (
        f"{version}: {passed} checks passed, baseline {baseline['checks_passed']}"
    )
    assert failed <= baseline["checks_failed"], (
        f"{version}: {failed} checks failed, baseline {baseline['checks_failed']}"
    )
    unexplained = sorted(n for n, (_, f) in results.items() if f and n not in baseline["failing_scenarios"])
    assert not unexplained, (
        f"{version}: new failing scenarios (fix them, or explain them in the baseline): {unexplained}"
    )
