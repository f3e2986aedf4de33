"""The application stylesheet, built from the tokens: one sheet per theme (and base font size), set once on
the application by ``themes.apply_theme``.

Every colour is a token role (``$text``, ``$focus_ring``…), every size a token (``$sp_sm``, ``$r_md``,
``$fs_small``…): the template below holds no literal. Widgets pick a look by ``objectName`` or by a dynamic
property set before they are shown:

- ``role="muted"`` (secondary text), ``role="caption"`` (small secondary text), ``role="title"``,
  ``role="heading"`` on a ``QLabel``;
- ``tone="danger" | "warning" | "success"`` on a ``QLabel`` (error, warning, success text);
- ``kind="primary" | "danger"`` on a ``QPushButton`` (the one primary action, a destructive one).

States: ``:hover``, ``:pressed``, ``:focus`` (a ring in ``focus_ring``, as wide as the border it replaces
plus one: padding shrinks by one so nothing moves), ``:disabled`` (faint text on the disabled surface,
dashed boundary), ``:selected``, ``[invalid="true"]`` (a field in error).
"""

from __future__ import annotations

import getpass
import tempfile
from functools import lru_cache
from pathlib import Path
from string import Template

from desktop_app.ui.theme.tokens import FOCUS_WIDTH, THEMES, Radii, Spacing, font_pt, scale_of

_TEMPLATE = Template(
    """/* Switchboard — $name theme, built from desktop_app/ui/theme/tokens.py (see docs/design.md). */

QMainWindow, QDialog { background: $surface; }
QDialog#welcomeDialog, QDialog#providerDialog { border: 1px solid $border; }
QDialogButtonBox { dialogbuttonbox-buttons-have-icons: 0; }
QToolTip { background: $surface_raised; color: $text; border: 1px solid $divider; padding: ${sp_xs}px ${sp_sm}px; }
QLabel[role="muted"] { color: $text_muted; }
QLabel[role="caption"] { color: $text_muted; font-size: ${fs_caption}pt; }
QLabel[role="title"] { font-size: ${fs_title}pt; font-weight: 600; }
QLabel[role="heading"] { font-weight: 600; }
QLabel[tone="danger"] { color: $danger; }
QLabel[tone="warning"] { color: $warning; }
QLabel[tone="success"] { color: $success; }
QFrame[frame="banner-danger"] { background: $danger_surface; border: none;
    border-bottom: 1px solid $danger; }
QFrame[frame="banner-danger"] QLabel { color: $danger_text; }
QFrame[frame="card"] { background: $surface_raised; border: 1px solid $divider; border-radius: ${r_md}px; }
QWidget#dialogHeader QLabel#dialogTitle { font-size: ${fs_title}pt; font-weight: 600; }
QWidget#dialogHeader QLabel#dialogSubtitle { color: $text_muted; }

/* -- the transcript: a reading column on the page colour -- */
QScrollArea#chatView, QWidget#chatPage { background: $surface_page; border: none; }
QScrollArea#chatView { border: 2px solid transparent; }
QLabel#emptyHint { color: $text_muted; font-size: ${fs_display}pt; }
QLabel#assistantLabel { color: $text_muted; font-weight: 600; padding: ${sp_xs}px 0 0 0; }
QLabel#userLabel { color: $text_muted; font-weight: 600; padding: ${sp_xs}px ${sp_xxs}px 0 0; }
QFrame#userMessage { background: $user_turn; border: 1px solid $user_turn_border; border-radius: ${r_xl}px; }
QLabel#userMessageText { color: $text; }
QLabel#userMessageContext { color: $text_muted; font-size: ${fs_caption}pt; padding-top: ${sp_xxs}px; }

/* code blocks: a header with the language and Copy, the code below */
QFrame#codeBlock { background: $surface_sunken; border: 1px solid $divider; border-radius: ${r_md}px; }
QWidget#codeHeader { background: $surface_alt; border: none; border-top-left-radius: ${r_md}px;
    border-top-right-radius: ${r_md}px; border-bottom: 1px solid $divider; }
QLabel#codeLanguage { color: $text_muted; font-size: ${fs_caption}pt; }
QToolButton#copyCodeButton { color: $text_muted; border: none; border-radius: ${r_sm}px;
    padding: ${sp_xxs}px ${sp_sm}px; font-size: ${fs_caption}pt; }
QToolButton#copyCodeButton:hover { background: $hover; color: $text; }
QPlainTextEdit#codeText { background: transparent; color: $text; border: none; }

/* tool cards and notices */
QFrame#toolCard { background: $surface_raised; border: 1px solid $divider; border-radius: ${r_lg}px; }
QLabel#toolCardTitle { font-weight: 600; }

/* -- the composer: one rounded field with its buttons inside -- */
QWidget#composerBar { background: $surface_page; }
QFrame#composerField { background: $surface_raised; border: 1px solid $border; border-radius: ${r_xl}px;
    padding: 1px; }
QPlainTextEdit#composer { background: transparent; border: none; color: $text; padding: ${sp_xxs}px ${sp_xs}px; }
QFrame#composerField QToolButton { border: none; border-radius: ${r_sm}px; padding: ${sp_xs}px ${sp_sm}px;
    color: $text_muted; }
QFrame#composerField QToolButton:hover { background: $hover; color: $text; }
QFrame#composerField QToolButton:pressed { background: $pressed; color: $text; }
QFrame#composerField QToolButton:disabled { color: $text_disabled; }
QFrame#composerField QToolButton#agentPicker { padding-right: ${sp_lg}px; }
QFrame#composerField QToolButton#attachButton { padding-right: ${sp_xxs}px; }
QFrame#composerField QToolButton#modelPicker::menu-indicator,
QFrame#composerField QToolButton#agentPicker::menu-indicator {
    image: url("$arrow_down"); subcontrol-origin: padding; subcontrol-position: center right; width: 10px;
    height: 10px; right: ${sp_xs}px; }
QPlainTextEdit#composer:disabled { color: $text_disabled; placeholder-text-color: $text_disabled; }
QPushButton#sendButton { background: $accent; color: $accent_text; border: none; border-radius: ${r_md}px;
    padding: 5px 14px; font-weight: 600; }
QPushButton#sendButton:hover { background: $accent_hover; }
QPushButton#sendButton:pressed { background: $accent_hover; padding: 6px 14px 4px 14px; }
QPushButton#sendButton:disabled { background: $surface_disabled; color: $text_disabled; }

/* -- lists, fields, buttons -- */
QWidget#conversationPanel { background: $surface; }
QLineEdit, QTextEdit[readOnly="false"], QPlainTextEdit[readOnly="false"], QAbstractSpinBox, QComboBox {
    background: $surface_page; border: 1px solid $border; border-radius: ${r_md}px;
    padding: ${sp_xs}px ${sp_sm}px; color: $text; selection-background-color: $selection;
    selection-color: $text; }
QTextEdit[readOnly="false"], QPlainTextEdit[readOnly="false"] { padding: ${sp_xxs}px; }
QComboBox::drop-down { subcontrol-origin: padding; subcontrol-position: center right; width: ${sp_xl}px;
    border: none; }
QComboBox::down-arrow { image: url("$arrow_down"); width: 10px; height: 10px; }
QComboBox::down-arrow:disabled { image: url("$arrow_down_disabled"); }
QAbstractSpinBox::up-button, QAbstractSpinBox::down-button { subcontrol-origin: border; width: ${sp_lg}px;
    border: none; background: transparent; margin-right: ${sp_xs}px; }
QAbstractSpinBox::up-button { subcontrol-position: top right; margin-top: ${sp_xxs}px; }
QAbstractSpinBox::down-button { subcontrol-position: bottom right; margin-bottom: ${sp_xxs}px; }
QAbstractSpinBox::up-button:hover, QAbstractSpinBox::down-button:hover { background: $hover; border-radius: ${r_sm}px; }
QAbstractSpinBox::up-arrow { image: url("$arrow_up"); width: 8px; height: 8px; }
QAbstractSpinBox::down-arrow { image: url("$arrow_down"); width: 8px; height: 8px; }
QAbstractSpinBox::up-arrow:disabled, QAbstractSpinBox::up-arrow:off { image: url("$arrow_up_disabled"); }
QAbstractSpinBox::down-arrow:disabled, QAbstractSpinBox::down-arrow:off { image: url("$arrow_down_disabled"); }
QComboBox QAbstractItemView { background: $surface_raised; border: 1px solid $divider; color: $text;
    selection-background-color: $selection; selection-color: $text; }
QLineEdit[invalid="true"], QPlainTextEdit[invalid="true"], QTextEdit[invalid="true"] { border-color: $danger; }
QListView, QListWidget, QTreeView, QTreeWidget, QTableView { background: $surface; border: 2px solid transparent;
    border-radius: ${r_sm}px; outline: none; color: $text; }
QListView::item, QListWidget::item { padding: 6px ${sp_sm}px; border-radius: ${r_sm}px; }
QListView::item:selected, QListWidget::item:selected, QTreeView::item:selected, QTableView::item:selected {
    background: $selection; color: $text; }
QListView::item:hover, QListWidget::item:hover, QTreeView::item:hover { background: $hover; }
QListWidget#serverList::item:selected { background: $selection; }
QPushButton { background: $control; border: 1px solid $border; border-radius: ${r_md}px;
    padding: 5px ${sp_md}px; color: $text; }
QPushButton:hover { background: $hover; }
QPushButton:pressed { background: $pressed; }
QPushButton:default { border-color: $accent; }
QPushButton[kind="primary"] { background: $accent; color: $accent_text; border-color: $accent; }
QPushButton[kind="primary"]:hover { background: $accent_hover; }
QPushButton[kind="primary"]:pressed { background: $accent_hover; }
QPushButton[kind="danger"] { color: $danger; }
QToolButton { border: 1px solid transparent; border-radius: ${r_sm}px; padding: ${sp_xxs}px ${sp_xs}px; color: $text; }
QToolButton:hover { background: $hover; }
QToolButton:pressed, QToolButton:checked { background: $pressed; }
QCheckBox, QRadioButton { color: $text; border: 2px solid transparent; border-radius: ${r_sm}px; padding: 1px; }
QCheckBox::indicator { width: 14px; height: 14px; border: 1px solid $border; border-radius: 3px;
    background: $surface_page; }
QCheckBox::indicator:hover { border-color: $accent; }
QCheckBox::indicator:checked { background: $accent; border-color: $accent; image: url("$check"); }
QCheckBox::indicator:indeterminate { background: $accent; border-color: $accent; }
QCheckBox::indicator:disabled { background: $surface_disabled; border: 1px dashed $divider; }
QCheckBox::indicator:checked:disabled { background: $surface_disabled; image: url("$check_disabled"); }
QTabWidget::pane { border: 1px solid $divider; border-radius: ${r_sm}px; top: -1px; }
QTabBar::tab { background: transparent; color: $text_muted; border: 2px solid transparent;
    padding: ${sp_xs}px ${sp_md}px; }
QTabBar::tab:selected { color: $text; border-bottom: 2px solid $accent; }
QTabBar::tab:hover { color: $text; background: $hover; }
QStatusBar { background: $surface; color: $text_muted; }
QStatusBar QLabel { color: $text_muted; }
QDockWidget { color: $text; }
QDockWidget::title { background: $surface; padding: ${sp_xs}px; }
QMenuBar { background: $surface; color: $text; }
QMenuBar::item:selected { background: $hover; }
QMenu { background: $surface_raised; color: $text; border: 1px solid $divider; padding: ${sp_xs}px; }
QMenu::item { padding: 5px 18px; border-radius: ${r_sm}px; }
QMenu::item:selected { background: $selection; color: $text; }
QMenu::item:disabled { color: $text_disabled; }
QMenu::separator { height: 1px; background: $divider; margin: ${sp_xs}px ${sp_sm}px; }
QSplitter::handle { background: $divider; }
QSplitter::handle:horizontal { width: 1px; }
QProgressBar { border: 1px solid $border; border-radius: ${r_sm}px; background: $surface_page; text-align: center;
    color: $text; }
QProgressBar::chunk { background: $accent; border-radius: ${r_sm}px; }

/* slim scroll bars */
QScrollBar:vertical { background: transparent; width: 10px; margin: ${sp_xxs}px; }
QScrollBar::handle:vertical { background: $scrollbar; border-radius: 3px; min-height: 28px; }
QScrollBar::handle:vertical:hover { background: $scrollbar_hover; }
QScrollBar:horizontal { background: transparent; height: 10px; margin: ${sp_xxs}px; }
QScrollBar::handle:horizontal { background: $scrollbar; border-radius: 3px; min-width: 28px; }
QScrollBar::handle:horizontal:hover { background: $scrollbar_hover; }
QScrollBar::add-line, QScrollBar::sub-line { width: 0; height: 0; }
QScrollBar::add-page, QScrollBar::sub-page { background: none; }

/* -- the quick prompt: a frameless box on top of everything, the chat's own widgets inside -- */
QWidget#quickPrompt { background: $surface_page; }
QFrame#quickFrame { background: $surface_page; border: 1px solid $border; }
QLabel#quickTitle { color: $text; font-weight: 600; }
QLabel#quickHint, QLabel#quickStatus { color: $text_muted; }

/* -- keyboard focus: every Tab stop draws a ring in the focus colour, as wide as the border it replaces
   (nothing moves); disabled controls are flat and faint, so they never read as clickable -- */
QListView:focus, QListWidget:focus, QTreeView:focus, QTreeWidget:focus, QTableView:focus { border-color: $focus_ring; }
QScrollArea#chatView[focusVisible="true"]:focus { border-color: $focus_ring; }
QScrollArea#pluginDetailsScroll, QDockWidget QScrollArea { border: 2px solid transparent; border-radius: ${r_sm}px; }
QScrollArea#pluginDetailsScroll:focus, QDockWidget QScrollArea:focus { border-color: $focus_ring; }
QPlainTextEdit[readOnly="true"] { border: 2px solid transparent; border-radius: ${r_sm}px; }
QPlainTextEdit[readOnly="true"]:focus { border-color: $focus_ring; }
QFrame#composerField[focusWithin="true"] { border: ${focus}px solid $focus_ring; padding: 0; }
QLineEdit:focus, QComboBox:focus, QAbstractSpinBox:focus { border: ${focus}px solid $focus_ring;
    padding: 3px 7px; }
QTextEdit[readOnly="false"]:focus, QPlainTextEdit[readOnly="false"]:focus {
    border: ${focus}px solid $focus_ring; padding: 1px; }
QPushButton:focus { border: ${focus}px solid $focus_ring; padding: 4px 11px; }
QPushButton[kind="primary"]:focus { border-color: $focus_ring_on_accent; }
QPushButton#sendButton:focus { border: ${focus}px solid $focus_ring_on_accent; padding: 3px 12px; }
QToolButton:focus { border: ${focus}px solid $focus_ring; border-radius: ${r_sm}px; padding: 1px 3px; }
QFrame#composerField QToolButton:focus { border: ${focus}px solid $focus_ring; padding: ${sp_xxs}px 6px; color: $text; }
QFrame#composerField QToolButton#agentPicker:focus { padding-right: 14px; }
QFrame#composerField QToolButton#attachButton:focus { padding-right: 0; }
QToolButton#copyCodeButton:focus { border: ${focus}px solid $focus_ring; padding: 0 6px; }
QCheckBox:focus, QRadioButton:focus { border-color: $focus_ring; }
QTabBar::tab:focus { border: ${focus}px solid $focus_ring; }
QPushButton:disabled, QPushButton[kind="primary"]:disabled {
    background: $surface_disabled; color: $text_disabled; border: 1px dashed $divider; }
QToolButton:disabled { color: $text_disabled; }
QLineEdit:disabled, QTextEdit:disabled, QPlainTextEdit:disabled, QComboBox:disabled, QAbstractSpinBox:disabled {
    background: $surface_disabled; color: $text_disabled; border: 1px dashed $divider; }
QCheckBox:disabled, QRadioButton:disabled { color: $text_disabled; }
"""
)


_ARROW = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">'
    '<path d="{path}" fill="none" stroke="{colour}" stroke-width="2" stroke-linecap="round" '
    'stroke-linejoin="round"/></svg>'
)
_PATHS = {"down": "M3.5 6l4.5 4.5L12.5 6", "up": "M3.5 10l4.5-4.5 4.5 4.5"}
_CHECK = "M3.5 8.5l3 3 6-7"  # a check box's mark


def arrow_files(theme: str) -> dict[str, str]:
    """The combo and spin box arrows and the check box's mark of ``theme`` as small SVG files (a
    stylesheet's ``image:`` takes a file): written once per process into a per-user folder under the temporary
    directory, in their colour and the disabled text colour."""
    t = THEMES["dark" if theme == "dark" else "light"]
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no login name (a container): one shared folder is fine, the files are public
        user = "user"
    folder = Path(tempfile.gettempdir()) / f"switchboard-theme-{user}"
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    shapes = [(f"arrow_{direction}", path, t.text_muted, t.text_disabled) for direction, path in _PATHS.items()]
    shapes.append(("check", _CHECK, t.accent_text, t.text_disabled))
    for name, path, colour, faint in shapes:
        for state, shade in (("", colour), ("_disabled", faint)):
            file = folder / f"{name}{state}-{shade.lstrip('#')}.svg"
            if not file.exists():
                file.write_text(_ARROW.format(path=path, colour=shade), encoding="utf-8")
            files[f"{name}{state}"] = file.as_posix()
    return files


@lru_cache(maxsize=8)
def stylesheet(theme: str, base_pt: float) -> str:
    """The application stylesheet of ``theme`` for a ``base_pt`` application font (cached: built once)."""
    t = THEMES["dark" if theme == "dark" else "light"]
    values: dict[str, object] = dict(t.as_dict())
    values["name"] = t.name
    values["focus"] = FOCUS_WIDTH
    values.update(arrow_files(theme))
    values.update({f"sp_{k}": v for k, v in scale_of(Spacing).items()})
    values.update({f"r_{k}": v for k, v in scale_of(Radii).items()})
    for step in ("caption", "small", "title", "display"):
        values[f"fs_{step}"] = font_pt(step, base_pt)
    return _TEMPLATE.substitute(values)


__all__ = ["stylesheet"]
