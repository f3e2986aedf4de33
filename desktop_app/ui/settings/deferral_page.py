"""Settings → Tool loading: when MCP tool definitions are deferred behind ``tool_search``."""

from __future__ import annotations

from desktop_app.ui.settings.registry import FormSection, SettingsPage, register_page

register_page(
    SettingsPage(
        key="deferral",
        title="Tool loading",
        order=40,
        description=(
            "With many MCP tools, their definitions crowd the model's context. Deferred tools are listed by name "
            "only; the model loads the ones it needs with tool_search. Pinned tools are always loaded: pin and "
            "exclude tools in the Tools panel (Ctrl+K)."
        ),
        sections=(
            FormSection(fields=("tool_deferral",)),
            FormSection(
                title="Thresholds (automatic mode)",
                fields=("tool_deferral_max_tools", "tool_deferral_context_percent", "context_window_tokens"),
                description="Automatic mode defers tools once either limit is passed.",
            ),
        ),
    )
)
