"""File → Install extension… and the user_config form's directory and file pickers, driven as a user would:
the menu action from the File menu, the file dialog it opens (Qt's own dialog, as on a headless screen),
and each field's Choose… button with the dialog it opens."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QPlainTextEdit
from pytestqt.qtbot import QtBot

from desktop_app.paths import app_paths
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.extensions.archive import Bundle
from desktop_app.runtime.extensions.manifest import parse_manifest
from desktop_app.ui.extensions.dialog import InstallExtensionDialog, _PathField
from desktop_app.ui.window.main_window import MainWindow
from tests.unit.ui.extensions.test_import_dialog import NoHost


def _file_menu_action(window: MainWindow, object_name: str):
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "File")
    return next(a for a in file_menu.actions() if a.objectName() == object_name)


def _pick(qtbot: QtBot, dialog: QFileDialog, *paths: Path) -> None:
    """Select ``paths`` in Qt's file dialog and press its accept button."""
    qtbot.waitExposed(dialog)
    assert dialog.testOption(QFileDialog.Option.DontUseNativeDialog) or dialog.isVisible()
    if len(paths) == 1:
        dialog.selectFile(str(paths[0]))
    else:
        dialog.setDirectory(str(paths[0].parent))
        dialog.selectFile(" ".join(f'"{p.name}"' for p in paths))
    dialog.accept()


def test_file_install_extension_opens_a_picker_and_the_install_screen(
    qtbot: QtBot, window: MainWindow, packed_bundles: dict[str, Path], tmp_path: Path
) -> None:
    paths = app_paths().ensure()
    action = _file_menu_action(window, "installExtensionAction")
    assert not action.isEnabled()  # until the host (and the keyring) is there
    window.attach_host(NoHost(), credentials=Credentials(), mcp_config=paths.mcp_config_file)
    assert action.isEnabled() and action.text().replace("&", "") == "Install extension…"
    action.trigger()
    picker = window.extensions.file_dialog
    assert isinstance(picker, QFileDialog) and "*.mcpb" in picker.nameFilters()[0]
    _pick(qtbot, picker, packed_bundles["node-probe"])
    dialog = window.extensions.dialog
    assert isinstance(dialog, InstallExtensionDialog) and dialog.bundle.manifest.name == "node-probe"

    # The "Folders" field (directory, multiple): Choose… twice adds one folder per line.
    folders = dialog.fields["folders"]
    assert isinstance(folders, _PathField) and isinstance(folders.edit, QPlainTextEdit)
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        folder.mkdir()
        qtbot.mouseClick(folders.button, Qt.MouseButton.LeftButton)
        assert folders.dialog is not None and folders.dialog.fileMode() == QFileDialog.FileMode.Directory
        _pick(qtbot, folders.dialog, folder)
    assert folders.value() == [str(first), str(second)]
    assert "Folders" not in dialog.problem.text()


def test_the_file_picker_of_a_file_field(qtbot: QtBot, tmp_path: Path) -> None:
    manifest = {
        "manifest_version": "0.3",
        "name": "files",
        "version": "1.0.0",
        "description": "Takes files.",
        "author": {"name": "tests"},
        "server": {"type": "binary", "entry_point": "x", "mcp_config": {"command": "x"}},
        "user_config": {
            "config": {"type": "file", "title": "Config file", "description": "One file", "required": True},
            "inputs": {"type": "file", "title": "Inputs", "description": "Files", "multiple": True},
        },
    }
    bundle = Bundle(tmp_path / "f.mcpb", parse_manifest(json.dumps(manifest), "f.mcpb"), b"", None, b"")
    dialog = InstallExtensionDialog(bundle, [], lambda values: "files")
    qtbot.addWidget(dialog)
    dialog.show()
    assert not dialog.install_button.isEnabled() and "Config file" in dialog.problem.text()
    one, two, three = (tmp_path / name for name in ("a.toml", "b.txt", "c.txt"))
    for path in (one, two, three):
        path.write_text("x", encoding="utf-8")
    config = dialog.fields["config"]
    assert isinstance(config, _PathField)
    qtbot.mouseClick(config.button, Qt.MouseButton.LeftButton)
    assert config.dialog is not None and config.dialog.fileMode() == QFileDialog.FileMode.ExistingFile
    _pick(qtbot, config.dialog, one)
    assert config.value() == str(one) and dialog.install_button.isEnabled()
    inputs = dialog.fields["inputs"]
    assert isinstance(inputs, _PathField)
    qtbot.mouseClick(inputs.button, Qt.MouseButton.LeftButton)
    assert inputs.dialog is not None and inputs.dialog.fileMode() == QFileDialog.FileMode.ExistingFiles
    _pick(qtbot, inputs.dialog, two, three)
    assert inputs.value() == [str(two), str(three)]
    assert dialog.values() == {"config": str(one), "inputs": [str(two), str(three)]}


def test_number_range_defaults_with_home_and_required_fields(qtbot, packed_bundles: dict[str, Path]) -> None:
    from PySide6.QtWidgets import QDoubleSpinBox, QLineEdit

    from desktop_app.runtime.extensions.archive import read_bundle

    dialog = InstallExtensionDialog(read_bundle(packed_bundles["python-probe"]), [], lambda values: "python-probe")
    qtbot.addWidget(dialog)
    limit = dialog.fields["limit"]
    assert isinstance(limit, QDoubleSpinBox) and (limit.minimum(), limit.maximum(), limit.value()) == (1, 10, 3)
    limit.setValue(50)  # the manifest's max holds in the form
    assert limit.value() == 10
    workspace = dialog.fields["workspace"]
    assert isinstance(workspace, _PathField) and workspace.value() == str(Path.home())  # default "${HOME}"
    assert not dialog.install_button.isEnabled() and dialog.problem.text() == "Fill in: API key"
    key = dialog.findChild(QLineEdit, "field_api_key")
    key.setText("sk-x")
    assert dialog.install_button.isEnabled() and dialog.values()["limit"] == "10.0"
