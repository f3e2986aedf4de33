"""The ``.mcpb`` file type is declared the same way everywhere it ships: the shared-mime-info XML, the
``.desktop`` entry (Linux), the Info.plist's document and exported types (macOS), the NSIS script
(Windows), and the suffixes the window accepts."""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NS = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
sys.path.insert(0, str(ROOT / "packaging"))


def _mime() -> dict[str, set[str]]:
    tree = ET.parse(ROOT / "resources" / "mime" / "switchboard-mcpb.xml")
    return {
        node.attrib["type"]: {glob.attrib["pattern"] for glob in node.findall("m:glob", NS)}
        for node in tree.getroot().findall("m:mime-type", NS)
    }


def _desktop() -> dict[str, str]:
    text = (ROOT / "packaging" / "linux" / "app.desktop.in").read_text(encoding="utf-8")
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_the_desktop_entry_and_the_mime_xml_agree() -> None:
    from desktop_app.ui.extensions.install import BUNDLE_SUFFIXES

    mime = _mime()
    assert mime == {"application/x-mcpb": {"*.mcpb", "*.dxt"}}
    entry = _desktop()
    assert set(filter(None, entry["MimeType"].split(";"))) == set(mime)
    assert re.search(r"\s%[fF]$", entry["Exec"]), "the file manager passes the bundle's path"
    assert {pattern.removeprefix("*") for patterns in mime.values() for pattern in patterns} == set(BUNDLE_SUFFIXES)


def test_the_macos_document_types_match_the_mime_xml() -> None:
    import render

    info = render.info_plist("1.2.3")
    (exported,) = info["UTExportedTypeDeclarations"]
    (document,) = info["CFBundleDocumentTypes"]
    assert document["LSItemContentTypes"] == [exported["UTTypeIdentifier"]]
    assert "public.zip-archive" in exported["UTTypeConformsTo"]
    tags = exported["UTTypeTagSpecification"]
    mime = _mime()
    assert set(tags["public.mime-type"]) == set(mime)
    assert {f"*.{ext}" for ext in tags["public.filename-extension"]} == mime["application/x-mcpb"]


def test_the_windows_installer_registers_the_bundle_suffixes() -> None:
    script = (ROOT / "installer" / "switchboard.nsi").read_text(encoding="utf-8")
    registered = set(re.findall(r'!insertmacro RegisterExtension "(\.\w+)"', script))
    unregistered = set(re.findall(r'!insertmacro UnregisterExtension "(\.\w+)"', script))
    assert {f"*{ext}" for ext in registered} == _mime()["application/x-mcpb"] and unregistered == registered
    assert '\\shell\\open\\command" "" \'"$INSTDIR\\${EXE}" "%1"\'' in script
    assert '"Content Type" "application/x-mcpb"' in script
