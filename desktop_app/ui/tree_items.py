"""The items of a ``QTreeWidget`` as Python sees them: Qt's accessors may return ``None`` (an index past the
end), so the panels that walk a tree's rows (filters, check lists, the first row to select) go through these.
"""

from __future__ import annotations

from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem


def top_level_items(tree: QTreeWidget) -> list[QTreeWidgetItem]:
    """The tree's top-level rows, in order."""
    items = (tree.topLevelItem(index) for index in range(tree.topLevelItemCount()))
    return [item for item in items if item is not None]


def select_first(tree: QTreeWidget) -> None:
    """Make the first top-level row current (nothing when the tree is empty)."""
    first = tree.topLevelItem(0)
    if first is not None:
        tree.setCurrentItem(first)
