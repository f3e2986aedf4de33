"""Linux artefacts from the frozen folder ``dist/switchboard``: the ``.deb`` (dpkg-deb) and a relocatable
``.tar.gz``.

    python packaging/linux.py [--dist dist] [--build build]

The .deb installs the app in ``/opt/switchboard`` with a ``/usr/bin/switchboard`` link, the ``.desktop``
entry, hicolor icons, AppStream metainfo, a copyright file, a changelog and the lintian overrides that a
self-contained third-party package needs (each one says why), and the shared-mime-info type of MCP Bundles
(``resources/mime/switchboard-mcpb.xml`` as ``/usr/share/mime/packages/<app id>.xml``; the ``.desktop`` entry
lists ``application/x-mcpb``, so a file manager opens a ``.mcpb`` with the install screen). Its
``DEBIAN/triggers`` activates the ``/usr/share/mime/packages`` and ``/usr/share/applications`` file triggers
that shared-mime-info and desktop-file-utils declare, so dpkg runs ``update-mime-database`` and
``update-desktop-database`` after installing and removing it (what debhelper's dh_installmime and
dh_installdesktop leave to triggers). Its ``Depends`` are the system libraries
Qt's xcb/wayland platforms load from the system rather than from the bundle. The tarball unpacks into
``switchboard-<version>/`` and runs from wherever it is unpacked (``./switchboard``); its
``install-desktop-entry.sh`` adds the menu entry, icon and the ``.mcpb`` file type for the current user.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import project

HERE = Path(__file__).resolve().parent
MIME_SOURCE = project.ROOT / "resources" / "mime" / "switchboard-mcpb.xml"
# dpkg file triggers the Debian packages of shared-mime-info and desktop-file-utils are interested in.
DEB_TRIGGERS = "activate-noawait /usr/share/mime/packages\nactivate-noawait /usr/share/applications\n"
# Libraries the frozen app takes from the system: OpenGL/EGL (never bundled), fonts, the X11/XCB and Wayland
# client libraries of the platform plugins, D-Bus (keyring, portals) and the keyboard map.
DEPENDS = [
    "libc6 (>= 2.31)",
    "libegl1",
    "libgl1",
    "libfontconfig1",
    "libfreetype6",
    "libdbus-1-3",
    "libglib2.0-0",
    "libxkbcommon0",
    "libxkbcommon-x11-0",
    "libx11-xcb1",
    "libxcb1",
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-image0",
    "libxcb-keysyms1",
    "libxcb-randr0",
    "libxcb-render-util0",
    "libxcb-shape0",
    "libxcb-xfixes0",
    "libxcb-xkb1",
    "libwayland-client0",
    "libwayland-cursor0",
    "libwayland-egl1",
    "fonts-dejavu-core | fonts-liberation2 | fonts-noto-core",
]
RECOMMENDS = ["gnome-keyring | kwalletmanager | keepassxc", "xdg-desktop-portal"]
LINTIAN_OVERRIDES = """\
# A self-contained desktop application installed under /opt, as third-party packages are (FHS 3.13).
switchboard: dir-or-file-in-opt *
# Self-contained: the frozen Python runtime and Qt come with their own copies of these libraries, so the
# package runs the same on every Debian/Ubuntu release it installs on.
switchboard: embedded-library *
# Python extension modules get libc from the interpreter that loads them.
switchboard: library-not-linked-against-libc [opt/switchboard/_internal/python3.11/lib-dynload/*]
# PyInstaller's bootloader (opt/switchboard/switchboard) is built without PIE by its upstream, and cannot be
# stripped: the application archive is appended to it.
switchboard: hardening-no-pie [opt/switchboard/switchboard]
switchboard: unstripped-binary-or-object [opt/switchboard/switchboard]
"""


def arch() -> str:
    out = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True)
    return out.stdout.strip() or "amd64"


def deb_name(version: str) -> str:
    return f"switchboard_{version}_{arch()}.deb"


def tar_name(version: str) -> str:
    return f"switchboard-{version}-{project.platform_tag()}.tar.gz"


def _copy_tree(src: Path, dest: Path) -> None:
    shutil.copytree(src, dest, symlinks=True)
    for path in [dest, *dest.rglob("*")]:  # dpkg/lintian want 0755 dirs and no group/other write bits
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        if path.is_dir():
            path.chmod(0o755)
        elif ".so" in path.name:  # shared objects are mapped, not executed
            path.chmod(0o644)
        else:
            path.chmod(0o755 if mode & 0o111 else 0o644)


def _install_shared_files(root: Path, build: Path, version: str) -> None:
    share = root / "usr" / "share"
    (share / "applications").mkdir(parents=True)
    shutil.copy2(build / f"{project.APP_ID}.desktop", share / "applications" / f"{project.APP_ID}.desktop")
    (share / "metainfo").mkdir(parents=True)
    shutil.copy2(build / f"{project.APP_ID}.metainfo.xml", share / "metainfo" / f"{project.APP_ID}.metainfo.xml")
    for png in (build / "icons").glob("*.png"):
        size = png.stem
        if int(size) > 512:  # hicolor's largest fixed size; 1024 is for the macOS iconset
            continue
        folder = share / "icons" / "hicolor" / f"{size}x{size}" / "apps"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy2(png, folder / f"{project.APP_ID}.png")
    (share / "mime" / "packages").mkdir(parents=True)
    shutil.copy2(MIME_SOURCE, share / "mime" / "packages" / f"{project.APP_ID}.xml")
    scalable = share / "icons" / "hicolor" / "scalable" / "apps"
    scalable.mkdir(parents=True)
    shutil.copy2(project.ROOT / "resources" / "switchboard.svg", scalable / f"{project.APP_ID}.svg")
    # The tray's autostart entry (desktop_app/autostart.py) names the icon "switchboard".
    shutil.copy2(project.ROOT / "resources" / "switchboard.svg", scalable / "switchboard.svg")
    for path in share.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)


def _changelog(version: str) -> bytes:
    stamp = time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(project.source_epoch()))
    text = (
        f"switchboard ({version}) stable; urgency=medium\n\n"
        f"  * Release {version}: see the project's commit history for the changes.\n\n"
        f" -- {project.MAINTAINER}  {stamp}\n"
    )
    return gzip.compress(text.encode(), compresslevel=9, mtime=0)


def build_deb(dist: Path, build: Path, version: str) -> Path:
    """Stage the package tree and run ``dpkg-deb --build``; returns the .deb's path."""
    root = build / "deb-root"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    root.chmod(0o755)
    _copy_tree(dist / project.EXE_NAME, root / "opt" / "switchboard")
    (root / "usr" / "bin").mkdir(parents=True)
    (root / "usr" / "bin" / project.EXE_NAME).symlink_to(f"/opt/switchboard/{project.EXE_NAME}")
    _install_shared_files(root, build, version)
    doc = root / "usr" / "share" / "doc" / "switchboard"
    doc.mkdir(parents=True)
    copyright_text = (HERE / "linux" / "copyright").read_text(encoding="utf-8").replace("@HOMEPAGE@", project.HOMEPAGE)
    (doc / "copyright").write_text(copyright_text, encoding="utf-8")
    (doc / "changelog.gz").write_bytes(_changelog(version))
    overrides = root / "usr" / "share" / "lintian" / "overrides"
    overrides.mkdir(parents=True)
    (overrides / "switchboard").write_text(LINTIAN_OVERRIDES, encoding="utf-8")
    for path in (root / "usr").rglob("*"):
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    installed_kib = sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink()) // 1024
    control = root / "DEBIAN"
    control.mkdir()
    control.chmod(0o755)
    (control / "control").write_text(
        f"Package: switchboard\n"
        f"Version: {version}\n"
        f"Architecture: {arch()}\n"
        f"Maintainer: {project.MAINTAINER}\n"
        f"Installed-Size: {installed_kib}\n"
        f"Depends: {', '.join(DEPENDS)}\n"
        f"Recommends: {', '.join(RECOMMENDS)}\n"
        f"Section: utils\n"
        f"Priority: optional\n"
        f"Homepage: {project.HOMEPAGE}\n"
        f"Description: {project.SUMMARY.lower()[0] + project.SUMMARY[1:]}\n"
        f" Switchboard is a native desktop AI assistant (Qt) that is also a complete MCP\n"
        f" host. It streams answers and reasoning from OpenAI-compatible, DeepSeek and\n"
        f" Anthropic endpoints, runs tools from any MCP server and asks before a tool\n"
        f" runs. API keys are kept in the system keyring. This package is\n"
        f" self-contained: it bundles its Python runtime and Qt under /opt/switchboard.\n",
        encoding="utf-8",
    )
    (control / "control").chmod(0o644)
    (control / "triggers").write_text(DEB_TRIGGERS, encoding="utf-8")
    (control / "triggers").chmod(0o644)
    out = dist / deb_name(version)
    out.unlink(missing_ok=True)
    env = {**os.environ, "SOURCE_DATE_EPOCH": str(project.source_epoch())}
    # gzip:3 builds in seconds here (CI); the release workflow sets DEB_COMPRESS=xz:6 for a smaller download.
    # (zstd would be fastest, but this lintian rejects zstd members.)
    kind, _, level = os.environ.get("DEB_COMPRESS", "gzip:3").partition(":")
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", f"-Z{kind}", f"-z{level}", "--build", str(root), str(out)],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    return out


INSTALL_DESKTOP_ENTRY = """\
#!/bin/sh
# Add Switchboard to the application menu of the current user, pointing at this unpacked folder.
set -eu
here=$(cd -- "$(dirname -- "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
mkdir -p "$data/applications" "$data/icons/hicolor/scalable/apps" "$data/mime/packages"
cp "$here/share/icons/hicolor/scalable/apps/@APP_ID@.svg" "$data/icons/hicolor/scalable/apps/"
sed "s|^Exec=.*|Exec=\\"$here/switchboard\\" %F|; s|^TryExec=.*|TryExec=$here/switchboard|" \\
    "$here/share/applications/@APP_ID@.desktop" >"$data/applications/@APP_ID@.desktop"
# MCP Bundles (.mcpb) open with Switchboard's install screen from the file manager.
cp "$here/share/mime/packages/@APP_ID@.xml" "$data/mime/packages/"
if command -v update-mime-database >/dev/null 2>&1; then
    update-mime-database "$data/mime"
fi
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database "$data/applications"
fi
echo "Added Switchboard ($here) to the application menu, as the app for MCP Bundles (.mcpb)."
"""


def build_tarball(dist: Path, build: Path, version: str) -> Path:
    """``switchboard-<version>/``: the frozen folder plus share/ (desktop entry, icons, metainfo)."""
    stage = build / "tar-root"
    shutil.rmtree(stage, ignore_errors=True)
    top = stage / f"switchboard-{version}"
    _copy_tree(dist / project.EXE_NAME, top)
    _install_shared_files(top, build, version)
    shutil.move(str(top / "usr" / "share"), str(top / "share"))
    (top / "usr").rmdir()
    script = top / "install-desktop-entry.sh"
    script.write_text(INSTALL_DESKTOP_ENTRY.replace("@APP_ID@", project.APP_ID), encoding="utf-8")
    script.chmod(0o755)
    out = dist / tar_name(version)
    epoch = project.source_epoch()

    def normalise(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        info.mtime = min(info.mtime, epoch)
        return info

    with tarfile.open(out, "w:gz", compresslevel=int(os.environ.get("TAR_GZ_LEVEL", "3"))) as tar:
        tar.add(top, arcname=top.name, filter=normalise)
    return out


def runtime_packages() -> list[str]:
    """The first alternative of each dependency: what to apt-get install before ``dpkg -i``."""
    return [dep.split("|")[0].split("(")[0].strip() for dep in DEPENDS]


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:] == ["--print-runtime-packages"]:
        print(" ".join(runtime_packages()))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=project.ROOT / "dist")
    parser.add_argument("--build", type=Path, default=project.ROOT / "build")
    parser.add_argument("--only", choices=["deb", "tar"], help="build only one artefact")
    ns = parser.parse_args(argv)
    version = project.version()
    if not (ns.dist / project.EXE_NAME / project.EXE_NAME).exists():
        parser.error(f"{ns.dist / project.EXE_NAME} is missing: run the PyInstaller build first")
    for kind, builder in (("deb", build_deb), ("tar", build_tarball)):
        if ns.only in (None, kind):
            t0 = time.perf_counter()
            out = builder(ns.dist, ns.build, version)
            size = out.stat().st_size / 2**20
            print(f"linux: {out.name} {size:.1f} MiB in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
