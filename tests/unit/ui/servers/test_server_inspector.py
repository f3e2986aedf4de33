"""The Servers panel's inspector shows a tool's, resource's and prompt's whole description (the list row has
its first line; the pane under the list has all of it, wrapped), and lists the server's resources and prompts."""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.ui.servers.inspector import ServerInspector
from desktop_app.ui.servers.log_view import ServerInfo, ServerLogView

LONG = (
    "Searches the project's issue tracker and returns the matching issues, newest first.\n"
    "Use `state` to include closed issues. Each result has its number, title, labels and the first "
    "paragraph of its body; ask for one issue by number to get the whole body and its comments. " * 3
).strip()


@dataclass
class Tool:
    server: str
    tool: str
    description: str


@dataclass
class Entry:
    name: str
    description: str
    uri: str = ""


class Host:
    def tools(self, include_excluded: bool = False) -> list[Tool]:
        return [Tool("tracker", "search_issues", LONG), Tool("tracker", "close", "Close an issue."), Tool("x", "y", "")]

    async def list_resources(self, server: str) -> list[Entry]:
        return [Entry("README", "The project's readme: what it is, how to build it, who to ask.", "repo://readme")]

    async def list_prompts(self, server: str) -> list[Entry]:
        return [Entry("triage", "Sort new issues by area and urgency.\nAsks for the label set first.")]


def test_descriptions_are_whole_and_resources_and_prompts_are_listed(qtbot, qloop):
    inspector = ServerInspector(ServerLogView())
    qtbot.addWidget(inspector)
    inspector.resize(420, 560)
    inspector.show()
    inspector.show_server("tracker", ServerInfo("tracker", "ready", tool_count=2), Host(), managed=True)
    assert inspector.tree_texts(inspector.tools) == ["close", "search_issues"]
    inspector.tools.setCurrentItem(inspector.tools.topLevelItem(1))
    detail = inspector.detail_labels["tool"]
    assert detail.isVisible() and detail.wordWrap()
    assert detail.text() == f"search_issues\n\n{LONG}"  # all of it, every line, not cut
    assert inspector.tools.topLevelItem(1).toolTip(1) == LONG
    assert detail.height() > 3 * detail.fontMetrics().lineSpacing()  # wrapped over several lines
    assert inspector.tabs.tabText(0) == "Tools (2)"

    qtbot.waitUntil(lambda: inspector.tree_texts(inspector.prompts) == ["triage"], timeout=3000)
    assert inspector.tree_texts(inspector.resources) == ["README"]
    assert inspector.tree_texts(inspector.resources, 1) == ["repo://readme"]
    assert [inspector.tabs.tabText(i) for i in (1, 2)] == ["Resources (1)", "Prompts (1)"]
    inspector.select_tab("Prompts")
    inspector.prompts.setCurrentItem(inspector.prompts.topLevelItem(0))
    assert inspector.detail_labels["prompt"].text().endswith("Asks for the label set first.")
