"""The Settings window's own pages: General, Providers, Approvals and grants, Appearance, Shortcuts.

Every field comes from the settings model (see :mod:`desktop_app.ui.settings.form`); the Providers and
Approvals pages add their lists (configured providers; remembered grants with Revoke) under the fields.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QVBoxLayout

from desktop_app.ui.settings.registry import FormSection, PageContext, PageExtra, SettingsPage, register_page


class GrantsExtra(PageExtra):
    """The remembered grants, with Revoke per row (the Approvals dialog's list, embedded)."""

    def __init__(self, context: PageContext) -> None:
        super().__init__(context.parent)
        from desktop_app.ui.dialogs.approvals import ApprovalsDialog

        self.setObjectName("grantsPage")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.grants = ApprovalsDialog(context.runtime, self)
        self.grants.setWindowFlags(Qt.WindowType.Widget)
        self.grants.read_only_box.hide()  # the generated field above edits the same setting
        for box in self.grants.findChildren(QDialogButtonBox):
            box.hide()
        self.grants.setMinimumHeight(240)
        layout.addWidget(self.grants)

    def apply(self, settings: Any) -> None:
        self.grants.refresh()


def _providers(context: PageContext) -> PageExtra:
    from desktop_app.ui.settings.providers_page import ProvidersPage

    return ProvidersPage(context)


register_page(
    SettingsPage(
        key="general",
        title="General",
        order=10,
        description="What every conversation starts with, and what is sent along with a prompt.",
        sections=(
            FormSection(fields=("system_prompt", "max_tool_rounds")),
            FormSection(
                title="Context",
                fields=("context_datetime", "context_os"),
                description="Facts added to every prompt, so the model knows when and where it is asked.",
            ),
            FormSection(
                title="Attachments",
                fields=("max_attachment_text_bytes", "max_attachment_image_bytes"),
                description="The largest file you can attach; bigger ones are refused with their size.",
            ),
            FormSection(
                title="Long conversations",
                fields=("tool_result_replay_limit", "compact_threshold_percent", "compact_keep_turns"),
                description="How a conversation stays within the model's context window as it grows.",
            ),
        ),
    )
)
register_page(
    SettingsPage(
        key="providers",
        title="Providers",
        order=20,
        description="The model endpoints Switchboard talks to. API keys are never written to a file: they go to the "
        "system keyring (without one, they are kept for this session only).",
        extra=_providers,
    )
)
register_page(
    SettingsPage(
        key="approvals",
        title="Approvals and grants",
        order=30,
        description="Every external tool asks before it runs. Grants you gave beyond one call are listed below.",
        sections=(FormSection(fields=("auto_approve_read_only",)),),
        extra=GrantsExtra,
    )
)
register_page(
    SettingsPage(
        key="appearance",
        title="Appearance",
        order=60,
        sections=(FormSection("appearance"),),
        description="The theme and the text size of the whole window.",
    )
)
register_page(
    SettingsPage(
        key="shortcuts",
        title="Shortcuts",
        order=70,
        description="Click a field and press the new keys; the clear button removes a shortcut.",
        sections=(FormSection("shortcuts"),),
    )
)
