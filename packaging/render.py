"""Render the files every installer takes from one source: icons from ``resources/switchboard.svg`` and the
versioned metadata from ``pyproject.toml``.

    python packaging/render.py [OUT]          # default OUT: build/

writes ``OUT/icons/<size>.png`` (16…512), ``OUT/icons/switchboard.ico`` (Windows), ``OUT/version_info.txt``
(the Windows version resource PyInstaller embeds in switchboard.exe), ``OUT/Info.plist`` (macOS) and
``OUT/<app id>.desktop`` / ``OUT/<app id>.metainfo.xml`` (Linux). Icons are drawn with Qt's own SVG renderer
(offscreen), so no image tool is needed.
"""

from __future__ import annotations

import os
import plistlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import project

ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512, 1024)
HERE = Path(__file__).resolve().parent


def render_icons(out: Path) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(project.ROOT / "resources" / "switchboard.svg"))
    if not renderer.isValid():
        raise SystemExit("render: resources/switchboard.svg is not a valid SVG")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for size in ICON_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        path = out / f"{size}.png"
        if not image.save(str(path), "PNG"):
            raise SystemExit(f"render: could not write {path}")
        written.append(path)
        if size == 256 and not image.save(str(out / "switchboard.ico"), "ICO"):
            raise SystemExit("render: could not write switchboard.ico")
    return written


def version_info(version: str) -> str:
    """The VSVersionInfo source PyInstaller compiles into the .exe's version resource."""
    nums = project.numeric_version(version)
    strings = {
        "CompanyName": "Switchboard",
        "FileDescription": project.APP_NAME,
        "FileVersion": version,
        "InternalName": project.EXE_NAME,
        "LegalCopyright": "MIT License",
        "OriginalFilename": f"{project.EXE_NAME}.exe",
        "ProductName": project.APP_NAME,
        "ProductVersion": version,
    }
    table = ",\n          ".join(f"StringStruct({k!r}, {v!r})" for k, v in strings.items())
    return f"""VSVersionInfo(
  ffi=FixedFileInfo(filevers={nums}, prodvers={nums}, mask=0x3f, flags=0x0, OS=0x40004,
                    fileType=0x1, subtype=0x0, date=(0, 0)),
  kids=[
    StringFileInfo([StringTable('040904B0', [
          {table}])]),
    VarFileInfo([VarStruct('Translation', [1033, 1200])])
  ]
)
"""


MCPB_MIME = "application/x-mcpb"
MCPB_EXTENSIONS = ("mcpb", "dxt")  # the same globs as resources/mime/switchboard-mcpb.xml (a unit test checks it)


def document_types() -> dict[str, object]:
    """Info.plist keys that make Finder open ``.mcpb`` (and the older ``.dxt``) with Switchboard: an exported
    uniform type (a zip archive with those extensions and the MIME type) and the document type that names it.
    The app receives the file as a QFileOpenEvent (desktop_app/ui/window/file_open.py)."""
    uti = f"{project.APP_ID.rsplit('.', 1)[0]}.mcpb"
    return {
        "CFBundleDocumentTypes": [
            {
                "CFBundleTypeName": "MCP Bundle",
                "CFBundleTypeRole": "Viewer",
                "CFBundleTypeIconFile": "switchboard.icns",
                "LSHandlerRank": "Default",
                "LSItemContentTypes": [uti],
            }
        ],
        "UTExportedTypeDeclarations": [
            {
                "UTTypeIdentifier": uti,
                "UTTypeDescription": "MCP Bundle",
                "UTTypeConformsTo": ["public.zip-archive", "public.data"],
                "UTTypeIconFile": "switchboard.icns",
                "UTTypeTagSpecification": {
                    "public.filename-extension": list(MCPB_EXTENSIONS),
                    "public.mime-type": [MCPB_MIME],
                },
            }
        ],
    }


def info_plist(version: str) -> dict[str, object]:
    """The macOS bundle's Info.plist: a normal Dock app (LSUIElement off) whose tray icon lives in the menu bar,
    and the app for MCP Bundles."""
    return {
        "CFBundleName": project.APP_NAME,
        "CFBundleDisplayName": project.APP_NAME,
        "CFBundleIdentifier": project.APP_ID,
        "CFBundleExecutable": project.EXE_NAME,
        "CFBundleIconFile": "switchboard.icns",
        "CFBundlePackageType": "APPL",
        "CFBundleShortVersionString": version,
        "CFBundleVersion": version,
        "CFBundleInfoDictionaryVersion": "6.0",
        "LSMinimumSystemVersion": "12.0",
        "LSApplicationCategoryType": "public.app-category.productivity",
        # Off: Switchboard is a regular app with a Dock icon and a menu bar; the tray icon (QSystemTrayIcon)
        # is an NSStatusItem in the menu bar either way, so quitting stays reachable from both.
        "LSUIElement": False,
        "NSHighResolutionCapable": True,
        "NSSupportsAutomaticGraphicsSwitching": True,
        "NSRequiresAquaSystemAppearance": False,  # follow the system's dark mode
        "NSHumanReadableCopyright": "MIT License",
        **document_types(),
    }


def fill(template: Path, version: str) -> str:
    text = template.read_text(encoding="utf-8")
    values = {
        "@VERSION@": version,
        "@APP_ID@": project.APP_ID,
        "@APP_NAME@": project.APP_NAME,
        "@EXE_NAME@": project.EXE_NAME,
        "@SUMMARY@": project.SUMMARY,
        "@HOMEPAGE@": project.HOMEPAGE,
        "@RELEASE_DATE@": project.release_date(),
    }
    for key, value in values.items():
        text = text.replace(key, value)
    if "@" in text.replace("@users.", ""):
        leftover = [word for word in text.split() if word.count("@") >= 2]
        if leftover:
            raise SystemExit(f"render: {template.name} has unfilled placeholders: {leftover}")
    return text


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else project.ROOT / "build"
    version = project.version()
    render_icons(out / "icons")
    (out / "version_info.txt").write_text(version_info(version), encoding="utf-8")
    (out / "Info.plist").write_bytes(plistlib.dumps(info_plist(version)))
    for name in ("app.desktop", "app.metainfo.xml"):
        target = out / name.replace("app", project.APP_ID, 1)
        target.write_text(fill(HERE / "linux" / f"{name}.in", version), encoding="utf-8")
    print(f"render: icons, version resource, Info.plist and Linux metadata for {version} in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
