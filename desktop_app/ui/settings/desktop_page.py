"""The Settings window's "Tray and start-up" page: close to tray, notifications, start at login.

The fields are ``Settings.close_to_tray``, ``notifications`` and ``start_at_login`` (generated like every
other page); the desktop shell (``desktop_app.ui.tray.desktop``) acts on them: it writes or removes the login
entry when ``start_at_login`` is saved.
"""

from __future__ import annotations

from desktop_app.ui.settings.registry import FormSection, SettingsPage, register_page

register_page(
    SettingsPage(
        key="desktop",
        title="Tray and start-up",
        order=50,
        description="How Switchboard lives on the desktop: the tray icon, its notifications, and starting at login.",
        sections=(FormSection(fields=("close_to_tray", "notifications", "start_at_login")),),
    )
)
