"""The .deb as a Debian packager checks it: its layout, lintian, desktop-file-validate and appstreamcli; and
what dpkg -i leaves on the system."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest
from pkgcheck import INSTALLED, linux, project, run

APP_ID = project.APP_ID
# Real processes on a shared 2-core box: more than pytest's default 120 s per test when the machine is busy.
pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def extracted(deb: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("deb")
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    return root


def test_deb_layout(deb: Path, version: str) -> None:
    listing = subprocess.run(["dpkg-deb", "--contents", str(deb)], capture_output=True, text=True, check=True).stdout
    paths = {line.split()[5] for line in listing.splitlines()}
    expected = {
        "./opt/switchboard/switchboard",
        "./opt/switchboard/_internal/resources/switchboard.svg",
        f"./usr/share/applications/{APP_ID}.desktop",
        f"./usr/share/metainfo/{APP_ID}.metainfo.xml",
        f"./usr/share/icons/hicolor/scalable/apps/{APP_ID}.svg",
        f"./usr/share/mime/packages/{APP_ID}.xml",
        "./usr/share/doc/switchboard/copyright",
        "./usr/share/doc/switchboard/changelog.gz",
    } | {f"./usr/share/icons/hicolor/{s}x{s}/apps/{APP_ID}.png" for s in (16, 24, 32, 48, 64, 128, 256, 512)}
    assert expected <= paths, sorted(expected - paths)
    link = next(line for line in listing.splitlines() if " ./usr/bin/switchboard " in line)
    assert link.startswith("l") and link.endswith("-> /opt/switchboard/switchboard"), link
    fields = {name: run(["dpkg-deb", "-f", deb, name]).stdout.strip() for name in ("Package", "Version", "Depends")}
    assert fields["Package"] == "switchboard" and fields["Version"] == version
    for dep in ("libxcb-cursor0", "libxkbcommon-x11-0", "libegl1", "libfontconfig1", "libdbus-1-3"):
        assert dep in fields["Depends"], fields["Depends"]


def test_deb_declares_the_mcpb_type_and_activates_the_mime_and_desktop_triggers(deb: Path, extracted: Path) -> None:
    shipped = extracted / "usr" / "share" / "mime" / "packages" / f"{APP_ID}.xml"
    assert shipped.read_bytes() == linux.MIME_SOURCE.read_bytes()
    control = subprocess.run(["dpkg-deb", "--ctrl-tarfile", str(deb)], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(control)) as tar:
        member = tar.extractfile("./triggers")
        assert member is not None
        triggers = member.read().decode().splitlines()
    assert triggers == ["activate-noawait /usr/share/mime/packages", "activate-noawait /usr/share/applications"]
    entry = (extracted / "usr" / "share" / "applications" / f"{APP_ID}.desktop").read_text(encoding="utf-8")
    assert "MimeType=application/x-mcpb;\n" in entry and "Exec=switchboard %F\n" in entry


def test_lintian_reports_no_errors(lintian: tuple[int, str]) -> None:
    returncode, output = lintian  # lintian --fail-on error (the overrides the package ships are explained in it)
    errors = [line for line in output.splitlines() if line.startswith("E:")]
    assert returncode == 0 and not errors, output
    assert "switchboard" in output or returncode == 0


def test_desktop_entry_validates(extracted: Path) -> None:
    entry = extracted / "usr" / "share" / "applications" / f"{APP_ID}.desktop"
    result = run(["desktop-file-validate", entry])
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr
    text = entry.read_text(encoding="utf-8")
    assert "Exec=switchboard %F\n" in text and f"Icon={APP_ID}\n" in text


def test_appstream_metainfo_validates(extracted: Path, version: str) -> None:
    metainfo = extracted / "usr" / "share" / "metainfo" / f"{APP_ID}.metainfo.xml"
    result = run(["appstreamcli", "validate", "--no-net", metainfo])  # no network here: URLs are not fetched
    assert result.returncode == 0, result.stdout + result.stderr
    assert f'<release version="{version}"' in metainfo.read_text(encoding="utf-8")


def test_installed_package_puts_files_in_place(installed: Path) -> None:
    assert installed.resolve() == Path("/opt/switchboard/switchboard")
    owned = subprocess.run(["dpkg", "-L", "switchboard"], capture_output=True, text=True, check=True).stdout.split()
    assert str(INSTALLED) in owned
    assert f"/usr/share/applications/{APP_ID}.desktop" in owned
    assert Path(f"/usr/share/icons/hicolor/256x256/apps/{APP_ID}.png").is_file()
    assert f"/usr/share/mime/packages/{APP_ID}.xml" in owned
    # dpkg ran the triggers: the MIME database knows *.mcpb, the desktop database names the app for it.
    if Path("/usr/bin/update-mime-database").exists():
        assert "application/x-mcpb:*.mcpb" in Path("/usr/share/mime/globs2").read_text(encoding="utf-8")
    if Path("/usr/bin/update-desktop-database").exists():
        cache = Path("/usr/share/applications/mimeinfo.cache").read_text(encoding="utf-8")
        assert f"application/x-mcpb={APP_ID}.desktop;" in cache


def test_runtime_packages_are_the_first_alternatives() -> None:
    packages = linux.runtime_packages()
    assert "fonts-dejavu-core" in packages and not [p for p in packages if "|" in p or "(" in p]


def test_tarball_desktop_entry_script_points_at_the_unpacked_folder(unpacked: Path, tmp_path: Path) -> None:
    script = unpacked.parent / "install-desktop-entry.sh"
    assert run(["shellcheck", "--shell=sh", script]).returncode == 0
    result = run([script], env={"XDG_DATA_HOME": str(tmp_path), "HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    entry = tmp_path / "applications" / f"{APP_ID}.desktop"
    assert run(["desktop-file-validate", entry]).returncode == 0
    assert f'Exec="{unpacked}" %F' in entry.read_text(encoding="utf-8")
    assert (tmp_path / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").is_file()
    assert (tmp_path / "mime" / "packages" / f"{APP_ID}.xml").is_file()
    if Path("/usr/bin/update-mime-database").exists():  # the user's MIME database knows *.mcpb
        assert "application/x-mcpb:*.mcpb" in (tmp_path / "mime" / "globs2").read_text(encoding="utf-8")
    if Path("/usr/bin/update-desktop-database").exists():
        cache = (tmp_path / "applications" / "mimeinfo.cache").read_text(encoding="utf-8")
        assert f"application/x-mcpb={APP_ID}.desktop;" in cache
