"""The main window's provider and settings display: the status-bar model label, the composer's model picker,
and putting saved settings (appearance, shortcuts, limits) in force.

A mixin of :class:`~desktop_app.ui.window.main_window.MainWindow` (it uses the window's ``runtime``, ``controller``,
``composer``, ``view``, ``model_label``, ``shortcut_actions`` and ``settings_listeners``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QKeySequence

from desktop_app.runtime.errors import SwitchboardError


class WindowProvider:
    """Which provider and model the shown conversation uses, and the settings in force in the window."""

    runtime: Any
    controller: Any
    composer: Any
    view: Any
    model_label: Any
    shortcut_actions: dict[str, Any]
    settings_listeners: list[Any]

    def _show_provider(self) -> None:
        """The status bar names the provider the shown conversation talks to (its own, else the default)."""
        if self.runtime is not None:
            settings = self.runtime.provider_settings
            conversation = self.controller.conversation_id if self.controller is not None else None
            chooser = getattr(self.runtime, "conversation_provider", None)
            if conversation and chooser is not None:
                settings = chooser(conversation)
            self.model_label.setText(f"{settings.model} · {settings.dialect}" if settings.configured else "")
            self._fill_model_picker(settings)
            picker = getattr(self, "agent_picker", None)
            if picker is not None:
                picker.refresh()  # the shown conversation's agent (``chat.agent_picker``)

    def _fill_model_picker(self, current: object) -> None:
        """The composer's provider/model picker: the conversation's provider, the default one, the vision
        provider, and the provider settings."""
        from PySide6.QtWidgets import QMenu

        button = self.composer.model_button
        model = getattr(current, "model", "")
        button.setText(
            f"{model} · {getattr(current, 'dialect', '')}"
            if getattr(current, "configured", False)
            else "Set up a provider"
        )
        menu = button.menu() or QMenu(button)
        menu.setObjectName("modelPickerMenu")
        menu.clear()
        runtime = self.runtime
        conversation = self.controller.conversation_id if self.controller is not None else None
        choices: list[tuple[str, object]] = []
        if runtime is not None:
            default = runtime.provider_settings
            choices.append((f"Default: {default.model} · {default.dialect}", default))
            vision = getattr(getattr(runtime, "settings", None), "vision_provider", None)
            if vision is not None and getattr(vision, "configured", False):
                choices.append((f"Vision: {vision.model} · {vision.dialect}", vision))
        for label, choice in choices:
            action = menu.addAction(label)
            action.setCheckable(True)
            action.setChecked(
                getattr(choice, "model", None) == model
                and getattr(choice, "base_url", None) == getattr(current, "base_url", None)
            )
            action.triggered.connect(lambda _checked=False, c=choice: self._choose_provider(conversation, c))
        menu.addSeparator()
        menu.addAction("Provider settings…", self._on_provider_triggered)
        button.setMenu(menu)

    def _choose_provider(self, conversation: str | None, settings: object) -> None:
        chooser = getattr(self.runtime, "set_conversation_provider", None)
        if conversation and chooser is not None:
            chooser(conversation, settings)
        self._show_provider()

    def apply_settings(self, settings: object) -> None:
        """Put saved settings in force in the window: appearance, shortcuts, limits, the provider label."""
        from desktop_app.ui.theme.appearance import apply_appearance

        appearance = getattr(settings, "appearance", None)
        if appearance is not None:
            apply_appearance(appearance)
        shortcuts = getattr(settings, "shortcuts", None)
        self.composer.edit.enter_sends = not getattr(shortcuts, "ctrl_enter_sends", False)
        for name, action in self.shortcut_actions.items():
            keys = getattr(shortcuts, name, None)
            if isinstance(keys, str):
                action.setShortcut(QKeySequence(keys, QKeySequence.SequenceFormat.PortableText))
        self._show_round_limit()
        self._show_provider()
        for listener in list(self.settings_listeners):
            listener(settings)

    def _show_round_limit(self) -> None:
        settings = getattr(self.runtime, "settings", None)
        self.view.max_tool_rounds = getattr(settings, "max_tool_rounds", None)

    def _on_provider_configured(self) -> None:
        # A provider chosen while in a conversation applies to it too (it stops keeping its stored one).
        conversation = self.controller.conversation_id
        setter = getattr(self.runtime, "set_conversation_provider", None)
        if conversation and setter is not None:
            try:
                setter(conversation, None)
            except SwitchboardError:  # a conversation the runtime does not know yet: nothing to reset
                pass
        self._show_provider()
        self._show_round_limit()
        self.set_status("Ready")
