"""The design system's pictures for docs/design.md: every component in each state, light and dark, drawn by the
real theme (tokens, application stylesheet, palette) in a real X window under Xvfb.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_design.py [light|dark ...]

Writes docs/screenshots/design-{colours,controls,dialog,cards}-{light,dark}.png.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "screenshots"


def main(argv: list[str]) -> int:
    import os

    os.environ.setdefault("SWITCHBOARD_REDUCED_MOTION", "1")
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtGui import QColor, QCursor, QPainter, QPixmap
    from PySide6.QtWidgets import (
        QApplication,
        QCheckBox,
        QComboBox,
        QFrame,
        QGridLayout,
        QHBoxLayout,
        QLabel,
        QLineEdit,
        QMessageBox,
        QPushButton,
        QSpinBox,
        QVBoxLayout,
        QWidget,
    )

    from desktop_app.runtime.settings import AppearanceSettings
    from desktop_app.ui.chat.markdown_view import MarkdownView
    from desktop_app.ui.chat.tool_card import ToolCard
    from desktop_app.ui.dialogs.frame import DialogHeader, button_row, message_box
    from desktop_app.ui.theme import appearance, themes
    from desktop_app.ui.theme.tokens import RADIUS, SPACE, THEMES, Colours

    app = QApplication([sys.argv[0]])
    app.setApplicationName("Switchboard")
    themes.install()
    OUT.mkdir(parents=True, exist_ok=True)

    def settle() -> None:
        for _ in range(5):
            app.processEvents()

    def page(title: str) -> tuple[QWidget, QVBoxLayout]:
        root = QWidget()
        root.setObjectName("designPage")
        root.setAutoFillBackground(True)
        outer = QVBoxLayout(root)
        outer.setContentsMargins(SPACE.xl, SPACE.lg, SPACE.xl, SPACE.lg)
        outer.setSpacing(SPACE.md)
        heading = QLabel(title)
        heading.setProperty("role", "title")
        outer.addWidget(heading)
        return root, outer

    def caption(text: str) -> QLabel:
        label = QLabel(text)
        label.setProperty("role", "caption")
        return label

    def shoot(widget: QWidget, name: str, theme: str, hovered: list[QWidget] | None = None) -> None:
        widget.show()
        widget.raise_()
        widget.activateWindow()
        QCursor.setPos(QPoint(1390, 890))
        settle()
        widget.setFocus(Qt.FocusReason.OtherFocusReason)
        settle()
        for item in hovered or []:  # the hover look (one pointer cannot be over five controls at once)
            item.setAttribute(Qt.WidgetAttribute.WA_UnderMouse, True)
        path = OUT / f"design-{name}-{theme}.png"
        widget.grab().save(str(path))
        print(path.relative_to(ROOT))
        widget.close()

    def colours(theme: str) -> None:
        root, outer = page("Colour roles")
        grid = QGridLayout()
        grid.setHorizontalSpacing(SPACE.lg)
        grid.setVerticalSpacing(SPACE.sm)
        t = THEMES[theme]
        for index, role in enumerate(Colours.__dataclass_fields__):
            swatch = QLabel()
            pixmap = QPixmap(36, 24)
            pixmap.fill(QColor(0, 0, 0, 0))
            painter = QPainter(pixmap)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(t.qcolor("divider"))
            painter.setBrush(t.qcolor(role))
            painter.drawRoundedRect(0, 0, 35, 23, RADIUS.sm, RADIUS.sm)
            painter.end()
            swatch.setPixmap(pixmap)
            name = QLabel(f"{role.replace('_', '-')}  <span style='color:{t.text_muted}'>{getattr(t, role)}</span>")
            row, column = index % 13, index // 13
            grid.addWidget(swatch, row, column * 2)
            grid.addWidget(name, row, column * 2 + 1)
        outer.addLayout(grid)
        shoot(root, "colours", theme)

    def controls(theme: str) -> None:
        root, outer = page("Controls and their states")
        grid = QGridLayout()
        grid.setHorizontalSpacing(SPACE.lg)
        grid.setVerticalSpacing(SPACE.sm)
        states = ("Rest", "Hover", "Pressed", "Focused", "Disabled")
        for column, state in enumerate(states, start=1):
            grid.addWidget(caption(state), 0, column)
        hovered: list[QWidget] = []

        def alone(widget: QWidget) -> QWidget:
            window = QWidget()
            window.setAutoFillBackground(True)
            box = QVBoxLayout(window)
            box.setContentsMargins(0, 0, 0, 0)
            box.addWidget(widget)
            window.resize(max(widget.sizeHint().width(), 170), widget.sizeHint().height())
            window.move(100, 100)
            window.show()
            window.activateWindow()
            settle()
            return window

        def hovered_picture(widget: QWidget) -> QLabel:
            """``widget`` under the pointer (a real X pointer move), as a picture."""
            from PySide6.QtTest import QTest

            widget.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # hovered, not focused (alone, it would take focus)
            window = alone(widget)
            for step in range(20):  # until Qt has seen the pointer enter (the window maps asynchronously)
                QTest.mouseMove(widget, widget.rect().center() + QPoint(step % 2, 0))
                settle()
                if widget.underMouse():
                    break
            picture = QLabel()
            picture.setPixmap(window.grab())  # with the page behind it (a widget alone has its own fill)
            window.close()
            QCursor.setPos(QPoint(1390, 890))
            settle()
            return picture

        def focused_picture(widget: QWidget) -> QLabel:
            """``widget`` with keyboard focus, in a window of its own (one focus at a time), as a picture."""
            window = alone(widget)
            widget.setFocus(Qt.FocusReason.TabFocusReason)
            settle()
            picture = QLabel()
            picture.setPixmap(window.grab())  # with the page behind it (a widget alone has its own fill)
            window.close()
            return picture

        def row(index: int, label: str, make: object) -> None:
            grid.addWidget(caption(label), index, 0)
            for column, state in enumerate(states, start=1):
                widget = make()  # type: ignore[operator]
                if state == "Pressed" and isinstance(widget, QPushButton):
                    widget.setDown(True)
                if state == "Disabled":
                    widget.setEnabled(False)
                if state == "Hover":
                    widget = hovered_picture(widget)
                if state == "Focused":
                    widget = focused_picture(widget)
                grid.addWidget(widget, index, column)

        def button() -> QPushButton:
            return QPushButton("Save")

        def primary() -> QPushButton:
            b = QPushButton("Install")
            b.setProperty("kind", "primary")
            return b

        def danger() -> QPushButton:
            b = QPushButton("Remove")
            b.setProperty("kind", "danger")
            return b

        def line() -> QLineEdit:
            e = QLineEdit("api.deepseek.com")
            e.setMinimumWidth(150)
            return e

        def combo() -> QComboBox:
            c = QComboBox()
            c.addItems(["Follow the system", "Light", "Dark"])
            return c

        def spin() -> QSpinBox:
            s = QSpinBox()
            s.setRange(0, 100)
            s.setSuffix(" %")
            s.setValue(80)
            return s

        def check() -> QCheckBox:
            c = QCheckBox("Notifications")
            c.setChecked(True)
            return c

        for index, (label, make) in enumerate(
            (("Button", button), ("Primary", primary), ("Destructive", danger), ("Line edit", line),
             ("Combo box", combo), ("Spin box", spin), ("Check box", check)),
            start=1,
        ):  # fmt: skip
            row(index, label, make)
        outer.addLayout(grid)
        invalid = QLineEdit("not a url")
        invalid.setProperty("invalid", True)
        error = QLabel("Enter a URL that starts with https://")
        error.setProperty("tone", "danger")
        errors = QHBoxLayout()
        errors.addWidget(caption("Error"))
        errors.addWidget(invalid)
        errors.addWidget(error, 1)
        outer.addLayout(errors)
        root.resize(900, 460)
        root.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        shoot(root, "controls", theme, hovered=hovered)

    def dialog(theme: str) -> None:
        root, outer = page("Dialogs: header, body, button row")
        frame = QFrame()
        frame.setProperty("frame", "card")
        inner = QVBoxLayout(frame)
        inner.setContentsMargins(SPACE.lg, SPACE.lg, SPACE.lg, SPACE.md)
        inner.addWidget(DialogHeader("Install “Files”?", "by Example Inc · version 1.2.0 · signed", icon="resource"))
        body = QLabel("Reads and writes the files in the folders you choose. It runs as a local command.")
        body.setWordWrap(True)
        inner.addWidget(body)
        host = QWidget()
        host_layout = QVBoxLayout(host)
        host_layout.setContentsMargins(0, 0, 0, 0)
        from PySide6.QtWidgets import QDialog

        holder = QDialog()
        host_layout.addWidget(button_row(holder, primary="Install"))
        inner.addWidget(host)
        outer.addWidget(frame)
        box = message_box(None, "Remove MCP server", "Remove 'notes' from mcp.json? It stops now, and its secrets "
                          "are removed from the keyring.", icon="delete", tone="danger",
                          primary=("Remove", QMessageBox.ButtonRole.DestructiveRole))  # fmt: skip
        box.show()
        settle()
        outer.addWidget(caption("A confirmation (message_box): our icon in the danger tone, the destructive action"))
        picture = QLabel()
        picture.setPixmap(box.grab())
        box.close()
        outer.addWidget(picture)
        root.resize(640, 420)
        shoot(root, "dialog", theme)

    def cards(theme: str) -> None:
        root, outer = page("The transcript: answer, code, tool card")
        answer = MarkdownView()
        answer.set_markdown(
            "## Reading column\n\nAnswers are set in the **reading font**, headings on the type scale, "
            "`inline code` and blocks in the monospace chain.\n\n> A quote has a bar down its side.\n\n"
            "```python\ndef total(items):\n    return sum(item.price for item in items)\n```\n"
        )
        outer.addWidget(answer)
        card = ToolCard("call-1", "files", "read_file", {"path": "notes/todo.md"})
        card.ask()
        card.show_decision(True, None, "user", "once", None)
        card.show_result("- buy milk\n- write the design page", is_error=False)
        card.set_expanded(True)
        outer.addWidget(card)
        outer.addStretch(1)
        root.resize(720, 640)
        shoot(root, "cards", theme)

    for theme in argv or ["light", "dark"]:
        appearance.apply_appearance(AppearanceSettings(theme=theme))
        settle()
        colours(theme)
        controls(theme)
        dialog(theme)
        cards(theme)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
