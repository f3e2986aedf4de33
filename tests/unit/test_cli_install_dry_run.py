"""``switchboard install --dry-run [--json]`` (issue 22): the compatibility report of a bundle packed by the
official mcpb CLI, through the CLI's real ``main``; nothing is written, and the exit code says whether it
would install."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from desktop_app.cli import main as cli_main


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli_main(list(args), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_dry_run_json_lists_every_part_and_writes_nothing(packed_bundles: dict[str, Path], tmp_path: Path) -> None:
    home = tmp_path / "home"
    code, out, err = run("install", str(packed_bundles["hello-node"]), "--home", str(home), "--dry-run", "--json")
    assert code == 0, err
    document = json.loads(out)
    assert document["installable"] is True and document["refusals"] == []
    assert document["runs"]["command"] == "node" and document["signature"]["state"] == "unsigned"
    parts = {line["part"]: line for line in document["compatibility"]}
    assert parts["user_config.api_key"]["status"] == "translated"
    assert parts["privacy_policies"]["detail"] == "read them: https://example.com/privacy"
    assert not (home / "data" / "extensions").exists() and not (home / "config" / "mcp.json").exists()


def test_dry_run_text_ends_with_the_report(packed_bundles: dict[str, Path], tmp_path: Path) -> None:
    code, out, _ = run("install", str(packed_bundles["python-lib"]), "--home", str(tmp_path), "--dry-run")
    assert code == 0
    assert "    [works] env PYTHONPATH — points inside the bundle: allowed\n" in out
    assert out.endswith("Dry run: nothing was installed.\n")


def test_a_refused_bundle_exits_2_with_its_report(packed_bundles: dict[str, Path], tmp_path: Path) -> None:
    source = packed_bundles["binary-probe"]
    other = tmp_path / "win-only.mcpb"
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(other, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "manifest.json":
                manifest = json.loads(data)
                manifest["compatibility"] = {"platforms": ["win32"]}
                data = json.dumps(manifest).encode()
            zout.writestr(info, data)
    code, out, _ = run("install", str(other), "--home", str(tmp_path / "h"), "--dry-run", "--json")
    document = json.loads(out)
    assert code == 2 and document["installable"] is False and "win32 only" in document["refusals"][0]
    [line] = [line for line in document["compatibility"] if line["part"] == "compatibility.platforms"]
    assert line["status"] == "not available"


def test_json_without_dry_run_is_a_usage_error(packed_bundles: dict[str, Path], tmp_path: Path) -> None:
    code, _, err = run("install", str(packed_bundles["hello-node"]), "--home", str(tmp_path), "--json")
    assert code == 2 and "--json goes with --dry-run" in err


def test_the_command_shown_is_the_bundles_file(packed_bundles: dict[str, Path], tmp_path: Path) -> None:
    """The spec's binary shape (``server/probe-server``): what the screen shows is what starts, from the bundle."""
    home = tmp_path / "home"
    code, out, _ = run("install", str(packed_bundles["binary-probe"]), "--home", str(home), "--dry-run", "--json")
    runs = json.loads(out)["runs"]
    folder = home / "data" / "extensions" / "binary-probe"
    assert code == 0 and runs["command"] == str(folder / "server" / "probe-server")
    assert runs["args"] == ["--config", "server/config.json"]
