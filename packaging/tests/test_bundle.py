"""The frozen folder: what is in it (and what is not), its metadata, and the size budget."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from pkgcheck import DIST, project
from PyInstaller.archive.readers import pkg_archive_contents

REQUIRED_QT = [
    "libQt6Core.so.6",
    "libQt6Gui.so.6",
    "libQt6Widgets.so.6",
    "libQt6Svg.so.6",
    "plugins/platforms/libqxcb.so",
    "plugins/platforms/libqwayland.so",
    "plugins/platforms/libqoffscreen.so",
    "plugins/imageformats/libqsvg.so",
    "plugins/iconengines/libqsvgicon.so",
]


def bundle_files(bundle: Path) -> list[str]:
    return sorted(str(p.relative_to(bundle)) for p in bundle.rglob("*") if p.is_file() or p.is_symlink())


def test_bundle_has_no_3d_qml_modules_quick_controls_or_multimedia(bundle: Path) -> None:
    files = bundle_files(bundle)
    qt = [f for f in files if "Qt6" in f or "/plugins/" in f or "PySide6" in f]
    forbidden = [f for f in qt if project.FORBIDDEN_QT.search(f.rsplit("/", 1)[-1])]
    assert not forbidden, f"trimmed Qt parts in the bundle: {forbidden}"
    code = [f for f in files if "/docs/" not in f"/{f}"]  # the user guide's pages (quick-prompt.md) are not Qt parts
    for needle in ("WebEngineQuick", "Qt3D", "QtQuick.", "QtQml.", "/qml/", "Multimedia"):
        assert not [f for f in code if needle.lower() in f"/{f}".lower()], needle
    for required in REQUIRED_QT:
        assert any(f.endswith(required) for f in files), f"{required} is missing from the bundle"
    assert not [f for f in files if f.endswith(".qm")], "Qt translations are trimmed (the UI is English)"
    assert not [f for f in files if "libqgtk3" in f or "libgtk-3" in f], "the GTK 3 theme drags in the system GTK"


def test_bundle_python_modules_include_keyring_backends_and_the_mcp_sdk(frozen: Path) -> None:
    names = set(pkg_archive_contents(str(frozen)))
    for module in (
        "keyring.backends.SecretService",
        "keyring.backends.kwallet",
        "keyring.backends.libsecret",
        "keyring.backends.chainer",
        "keyring.backends.fail",
        "secretstorage",
        "jeepney",
        "mcp.client.stdio",
        "mcp.client.streamable_http",
        "mcp_types",
        "desktop_app.runtime.service",
        "desktop_app.ui.dialogs.provider",
    ):
        assert module in names, f"{module} is not in the frozen app"
    for absent in ("pytest", "tkinter", "PySide6.QtQml", "PySide6.QtQuick", "PySide6.QtWebEngineQuick"):
        assert absent not in names, f"{absent} should not be bundled"


def test_every_qt_module_the_app_imports_is_bundled(bundle: Path) -> None:
    """A Qt module excluded by mistake only fails where it is imported (e.g. the single-instance server, which
    --smoke-test never starts): compare the app's imports with the bundle instead."""
    used = set()
    for source in (project.ROOT / "desktop_app").rglob("*.py"):
        used.update(re.findall(r"^\s*from PySide6\.(Qt\w+) import", source.read_text(encoding="utf-8"), re.M))
    assert {"QtCore", "QtGui", "QtWidgets", "QtNetwork"} <= used
    assert used >= project.WEBENGINE_QT  # MCP App views (issue 26): imported lazily, bundled all the same
    bundled = {p.name.split(".")[0] for p in (bundle / "_internal" / "PySide6").glob("Qt*.so")}
    assert used <= bundled, f"imported by desktop_app but not bundled: {sorted(used - bundled)}"
    assert not set(project.EXCLUDED_MODULES) & {f"PySide6.{name}" for name in used}


def test_bundle_carries_resources_and_version_metadata(bundle: Path, version: str) -> None:
    internal = bundle / "_internal"
    assert (internal / "resources" / "switchboard.svg").is_file()
    assert (internal / "docs" / "index.md").is_file()  # Help → User guide
    assert (internal / f"switchboard-{version}.dist-info" / "METADATA").is_file()
    keyring = next(internal.glob("keyring-*.dist-info"))
    entry_points = (keyring / "entry_points.txt").read_text(encoding="utf-8")
    assert "[keyring.backends]" in entry_points and "SecretService" in entry_points
    for dist in ("mcp", "mcp_types", "httpx2"):
        assert list(internal.glob(f"{dist}-*.dist-info")), f"{dist} metadata is missing"


def test_bundle_ships_what_mcp_app_views_need(bundle: Path) -> None:
    """Issue 26: "the installers include what the views need". Without QtWebEngineProcess, its resources, ICU
    data or locales, the first view would fail at run time (Chromium's helper and data are not Python imports)."""
    qt = bundle / "_internal" / "PySide6" / "Qt"
    process = qt / "libexec" / "QtWebEngineProcess"
    assert process.is_file() and process.stat().st_mode & 0o111, "QtWebEngineProcess is missing or not executable"
    for data in ("icudtl.dat", "qtwebengine_resources.pak", "v8_context_snapshot.bin"):
        assert (qt / "resources" / data).is_file(), f"Qt WebEngine's {data} is missing"
    assert (qt / "translations" / "qtwebengine_locales" / "en-US.pak").is_file(), "Qt WebEngine's locales are missing"
    internal = bundle / "_internal"
    for lib in ("libQt6WebEngineCore.so.6", "libQt6WebEngineWidgets.so.6", "libQt6WebChannel.so.6"):
        assert list(internal.rglob(lib)), f"{lib} is missing"
    for module in sorted(project.WEBENGINE_QT):
        assert list((internal / "PySide6").glob(f"{module}.*so")), f"PySide6.{module} is missing"
    # The helper process and the view module load: every library they need resolves (from the bundle, or from
    # the system libraries the .deb declares).
    for binary in (process, internal / "PySide6" / "QtWebEngineWidgets.abi3.so"):
        env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
        out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, env=env, check=True).stdout
        assert "not found" not in out, f"{binary.name}: {out}"


def folder_mib(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink()) / 2**20


def test_sizes_are_within_the_recorded_budget(bundle: Path, deb: Path, tarball: Path) -> None:
    sizes = {"folder": folder_mib(bundle), "deb": deb.stat().st_size / 2**20, "tar.gz": tarball.stat().st_size / 2**20}
    over = {k: f"{v:.1f} MiB > {project.BUDGET_MIB[k]} MiB" for k, v in sizes.items() if v > project.BUDGET_MIB[k]}
    assert not over, f"over the bundle-size budget (packaging/project.py BUDGET_MIB): {over}"
    # The packaging issue's bound was 100 MB; issue 26 asks the installers to include Qt WebEngine for MCP App
    # views and to update the budget with its cost: 69.4 MB → 203.6 MB measured (+134 MB), bound 210 MB.
    assert deb.stat().st_size <= 210 * 10**6, "the .deb is at most 210 MB (100 MB + Qt WebEngine, issue 26)"


def test_trim_rules_keep_what_the_app_needs() -> None:
    assert project.is_trimmed("PySide6/Qt/lib/libQt6WebEngineQuick.so.6")
    assert project.is_trimmed("PySide6/Qt/lib/libQt6QuickControls2.so.6")
    assert not project.is_trimmed("PySide6/Qt/lib/libQt6WebEngineCore.so.6")  # MCP App views (issue 26)
    assert not project.is_trimmed("PySide6/Qt/lib/libQt6Quick.so.6")  # linked by Qt WebEngine
    assert project.is_trimmed("PySide6/Qt/plugins/platformthemes/libqgtk3.so")
    assert project.is_trimmed("PySide6/Qt/translations/qtbase_de.qm")
    assert not project.is_trimmed("PySide6/Qt/lib/libQt6Widgets.so.6")
    assert not project.is_trimmed("PySide6/Qt/plugins/platforms/libqxcb.so")
    assert re.search(r"\d+\.\d+\.\d+", project.version())
    assert DIST.name == "dist"
