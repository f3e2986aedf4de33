"""What every packaging step agrees on: the version (read from pyproject.toml, the one place it is set),
the application id and names, the artefact names, and which parts of Qt stay out of the bundle.

Imported by the PyInstaller spec, the build scripts and the packaging tests; standard library only.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP_ID = "app.switchboard.Switchboard"  # reverse-DNS id: .desktop file, AppStream, macOS bundle
APP_NAME = "Switchboard"
EXE_NAME = "switchboard"
SUMMARY = "Small, fast desktop AI assistant that is also a complete MCP host"
HOMEPAGE = "https://github.com/switchboard-app/switchboard"
MAINTAINER = "Switchboard developers <switchboard@users.noreply.github.com>"

# Bundle-size budget (MiB), checked by packaging/tests after every build. Without Qt WebEngine (2026-12-02): folder
# ~150, .deb 66.2 (69.4 MB, gzip -3), .tar.gz 66.2. With it, as issue 26 asks ("the installers include what the
# views need; update their size budget and say the cost"), measured 2026-12-02: folder 442.8, .deb 194.2
# (203.6 MB), .tar.gz 194.2: MCP App views cost +128 MiB (+134 MB) per download, +293 MiB installed. ~5% headroom.
BUDGET_MIB = {"folder": 465, "deb": 204, "tar.gz": 204}

# Python modules the app never imports; kept out so their Qt libraries are not collected either.
EXCLUDED_MODULES = [
    "tkinter",
    "PySide6.QtQml",
    "PySide6.QtQuick",
    "PySide6.QtQuickControls2",
    "PySide6.QtQuickWidgets",
    "PySide6.QtQuickTest",
    "PySide6.QtWebEngineQuick",
    "PySide6.Qt3DCore",
    "PySide6.Qt3DRender",
    "PySide6.QtMultimedia",
    "PySide6.QtMultimediaWidgets",
    "PySide6.QtSql",
    "PySide6.QtTest",
    "PySide6.QtUiTools",
    "PySide6.QtDesigner",
    "PySide6.QtHelp",
    "PySide6.QtPdf",
    "PySide6.QtOpenGLWidgets",
    "PySide6.QtPrintSupport",
    "pytest",
    "_pytest",
    "mypy",
    "IPython",
]

# Qt modules of MCP App views (desktop_app/ui/apps, issue 26: "the installers include what the views need"),
# imported lazily with the first view: Qt WebEngine, its Widgets view and QtWebChannel. PyInstaller's PySide6
# hooks bring QtWebEngineProcess, its resources (.pak, ICU data, V8 snapshot) and locales.
WEBENGINE_QT = frozenset({"QtWebEngineCore", "QtWebEngineWidgets", "QtWebChannel"})

# Qt libraries and plugins that must never be in the bundle (checked by a test that lists it). Qt WebEngine links
# Qt6Quick/Qml/QmlModels/QuickWidgets/OpenGL/Positioning/PrintSupport, so those libraries are kept (the Python
# modules QtQml/QtQuick stay excluded); QML modules, Quick controls and WebEngine's QML API are not.
FORBIDDEN_QT = re.compile(
    r"Qt6?(WebEngineQuick|WebView|WebChannelQuick|3D|QuickControls|QuickTemplates|QuickDialogs|QuickLayouts|"
    r"QuickShapes|QuickParticles|QuickTest|QmlCompiler|QmlDom|QmlLS|Multimedia|SpatialAudio|Pdf|Designer|Sql|Test)",
    re.IGNORECASE,
)
# Plugins the app does not need: QML tooling, designer, SQL drivers, TLS backends (the app's HTTP goes through
# httpx; QtNetwork is only the single-instance QLocalServer), the GTK 3 theme (it would drag the system's GTK
# into the bundle), embedded-device platforms (EGLFS, linuxfb, VNC, evdev input) and Wayland server-side
# integrations. Kept: xcb, wayland, offscreen and minimal platforms, the XDG portal theme, SVG icons and the
# common image formats.
EXCLUDED_PLUGIN = re.compile(
    r"plugins/(qmltooling|qmllint|designer|sqldrivers|tls|networkinformation|printsupport|generic|"
    r"egldeviceintegrations|wayland-graphics-integration-server|platformthemes/libqgtk3|"
    r"platforms/libq(eglfs|linuxfb|vnc|vkkhrdisplay|minimalegl)|imageformats/libq(tiff|tga|wbmp|icns|pdf))",
)


def version() -> str:
    """The project version from pyproject.toml."""
    with (ROOT / "pyproject.toml").open("rb") as fh:
        return str(tomllib.load(fh)["project"]["version"])


def numeric_version(v: str | None = None) -> tuple[int, int, int, int]:
    """``0.1.0`` → ``(0, 1, 0, 0)``: the four-part form Windows version resources need."""
    parts = [int(p) for p in re.findall(r"\d+", v or version())[:4]]
    return (*parts, 0, 0, 0, 0)[:4]  # type: ignore[return-value]


def platform_tag() -> str:
    machine = {"x86_64": "x86_64", "amd64": "x86_64", "arm64": "arm64", "aarch64": "arm64"}
    import platform

    arch = machine.get(platform.machine().lower(), platform.machine().lower())
    system = {"linux": "linux", "win32": "windows", "darwin": "macos"}.get(sys.platform, sys.platform)
    return f"{system}-{arch}"


def is_trimmed(dest: str) -> bool:
    """True for a collected file the bundle leaves out (``dest`` is its path inside the bundle)."""
    dest = dest.replace("\\", "/")
    if FORBIDDEN_QT.search(dest.rsplit("/", 1)[-1]) or EXCLUDED_PLUGIN.search(dest):
        return True
    return "/translations/" in dest and dest.endswith(".qm")  # the UI is English only


def is_root_binary(dest: str) -> bool:
    """A binary loaded for its own sake (Python extension, Qt plugin, libpython), not only as a dependency."""
    dest = dest.replace("\\", "/")
    name = dest.rsplit("/", 1)[-1]
    return (
        "/plugins/" in dest
        or "/lib-dynload/" in dest
        or ".cpython-" in name
        or name.endswith((".abi3.so", ".pyd"))
        or name.startswith(("libpython", "python3"))
        or not name.startswith("lib")  # e.g. shiboken6/Shiboken.abi3.so is caught above; others: keep
    )


def prune_unneeded(binaries: list[tuple[str, str, str]], needed_by: object) -> list[tuple[str, str, str]]:
    """Drop shared libraries that no kept root binary needs (they were collected only for trimmed plugins).

    ``needed_by(src)`` returns the sonames ``src`` loads, transitively (PyInstaller's ``get_imports``).
    """
    roots = [entry for entry in binaries if is_root_binary(entry[0])]
    needed: set[str] = set()
    for _dest, src, _kind in roots:
        needed.update(name.rsplit("/", 1)[-1] for name in needed_by(src))  # type: ignore[operator]
    return [e for e in binaries if is_root_binary(e[0]) or e[0].replace("\\", "/").rsplit("/", 1)[-1] in needed]


def release_date() -> str:
    """The date of the release: the last commit's (reproducible), else today."""
    import datetime
    import subprocess

    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "log", "-1", "--format=%cs"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        out = ""
    return out or datetime.date.today().isoformat()


def source_epoch() -> int:
    """SOURCE_DATE_EPOCH if set, else the last commit's time: reproducible timestamps in the artefacts."""
    import os
    import subprocess

    if os.environ.get("SOURCE_DATE_EPOCH", "").isdigit():
        return int(os.environ["SOURCE_DATE_EPOCH"])
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "log", "-1", "--format=%ct"], capture_output=True, text=True, check=True
        ).stdout.strip()
        return int(out)
    except (OSError, subprocess.CalledProcessError, ValueError):
        return 0


def drop_build_runpaths(folder: Path) -> list[Path]:
    """Remove RUNPATH/RPATH entries that point at the build machine (e.g. a pyenv prefix) from the bundle's ELF
    files: on a user's machine they would make the loader look in folders that are not ours. ``$ORIGIN``
    entries stay. Needs ``patchelf`` (Debian's package; packaging/build.sh installs it)."""
    import shutil
    import subprocess

    patchelf = shutil.which("patchelf")
    changed: list[Path] = []
    for path in sorted(folder.rglob("*.so*")):
        if path.is_symlink() or not path.is_file():
            continue
        with path.open("rb") as fh:
            if fh.read(4) != b"\x7fELF":
                continue
        if patchelf is None:
            raise SystemExit("drop_build_runpaths: patchelf is missing (apt-get install patchelf)")
        rpath = subprocess.run([patchelf, "--print-rpath", str(path)], capture_output=True, text=True).stdout.strip()
        if not rpath:
            continue
        kept = [entry for entry in rpath.split(":") if entry.startswith("$ORIGIN")]
        if kept == rpath.split(":"):
            continue
        if kept:
            subprocess.run([patchelf, "--set-rpath", ":".join(kept), str(path)], check=True)
        else:
            subprocess.run([patchelf, "--remove-rpath", str(path)], check=True)
        changed.append(path)
    return changed
