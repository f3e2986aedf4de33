"""A bundle's compatibility report (issue 22): one line per manifest part, the user guide's table
(docs/bundles.md) from the same table, and the lines a loader variable or an unchecked constraint gets."""

from __future__ import annotations

import json
from pathlib import Path

from desktop_app.runtime.compat import CompatLine
from desktop_app.runtime.extensions.manifest import Manifest
from desktop_app.runtime.extensions.report import BUNDLE_SUPPORT, bundle_report, support_markdown
from tests.support.bundles import HERE

REPO = Path(__file__).resolve().parents[4]


def probe(runtime: str) -> tuple[int, int, int] | None:
    return (3, 11, 0) if runtime == "python" else (20, 1, 0)


def report_of(document: dict[str, object], folder: Path = Path("/b")) -> list[CompatLine]:
    return bundle_report(Manifest.model_validate(document), folder, probe=probe, which=lambda c: None)


def test_every_part_of_a_reference_shaped_manifest_has_a_line() -> None:
    document = json.loads((HERE / "hello-node" / "manifest.json").read_text())
    lines = report_of(document)
    covered = {line.part.split(" ")[0].split(".")[0] for line in lines}
    assert set(document) <= covered, set(document) - covered
    parts = {line.part for line in lines}
    assert {f"user_config.{key}" for key in document["user_config"]} <= parts
    assert all(line.status in ("works", "translated", "not available") and line.detail for line in lines)
    by_part = {line.part: line for line in lines}
    assert by_part["user_config.api_key"].status == "translated"  # optional, no default: left out when unset
    assert by_part["user_config.debug_mode"].status == "works"  # it has a default
    assert by_part["compatibility.claude_desktop"].status == "not available"
    assert by_part["compatibility.runtimes.node"].detail == ">=16.0.0: 20.1.0 fits"


def test_loader_variables_and_uv_say_whether_they_run() -> None:
    base = json.loads((HERE / "python-lib" / "manifest.json").read_text())
    assert ("env PYTHONPATH", "works") in {(line.part, line.status) for line in report_of(base)}
    base["server"]["mcp_config"]["env"] = {"PYTHONPATH": "/usr/lib/elsewhere", "NODE_OPTIONS": "--inspect"}
    statuses = {line.part: line.status for line in report_of(base)}
    assert statuses["env PYTHONPATH"] == statuses["env NODE_OPTIONS"] == "not available"
    uv = {**base, "manifest_version": "0.4", "server": {"type": "uv", "entry_point": "src/server.py"}}
    lines = {line.part: line for line in report_of(uv)}
    assert lines["server.type uv"].status == "not available" and "uv is not installed" in lines["server.type uv"].detail
    assert lines["server.mcp_config"].status == "translated"
    assert "uv run --directory ${__dirname} src/server.py" in lines["server.mcp_config"].detail


def test_another_platform_is_not_available() -> None:
    document = json.loads((HERE / "binary-probe" / "manifest.json").read_text())
    document["compatibility"] = {"platforms": ["win32"]}
    [line] = [line for line in report_of(document) if line.part == "compatibility.platforms"]
    assert line.status == "not available" and line.detail.startswith("win32 only; this is ")


def test_the_guide_table_comes_from_the_report_table() -> None:
    readme = (REPO / "docs" / "bundles.md").read_text(encoding="utf-8")
    assert support_markdown() in readme
    assert list(BUNDLE_SUPPORT) == ["MCP Bundle (.mcpb)"]


def test_an_unknown_top_level_field_installs_and_is_named_but_a_typo_inside_a_part_is_refused() -> None:
    """Two official examples carry top-level keys the spec does not define (``id``, ``scripts``): they are read,
    not used, and each gets a "not available" line; inside a part an unknown key is still an error."""
    import pytest

    from desktop_app.runtime.extensions.archive import BundleError
    from desktop_app.runtime.extensions.manifest import parse_manifest

    document = json.loads((HERE / "hello-node" / "manifest.json").read_text())
    manifest = parse_manifest(json.dumps({**document, "id": "hello", "scripts": {"build": "tsc"}}), "hello.mcpb")
    assert manifest.unknown_fields == ["id", "scripts"]
    lines = {line.part: line for line in bundle_report(manifest, Path("/b"), probe=probe, which=lambda c: None)}
    assert lines["id"].status == lines["scripts"].status == "not available"
    assert "not used" in lines["id"].detail
    server = {**document["server"], "comand": "node"}
    with pytest.raises(BundleError, match=r"server\.comand: unknown field"):
        parse_manifest(json.dumps({**document, "server": server}), "typo.mcpb")
