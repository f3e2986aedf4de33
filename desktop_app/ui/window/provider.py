"""The main window's provider and settings display: the status-bar model label, the composer's model picker,
and putting saved settings (appearance, shortcuts, limits) in force.

:class:`ProviderDisplay` is one collaborator of :class:`~desktop_app.ui.window.main_window.MainWindow`
(``window.provider``); it reads the window's ``runtime``, ``controller``, ``composer``, ``view``,
``model_label``, ``shortcut_actions`` and ``settings_listeners``, and owns no state of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QKeySequence

if TYPE_CHECKING:
    from desktop_app.ui.window.main_window import MainWindow


class ProviderDisplay:
    """Which provider and model the shown conversation uses, and the settings in force in the window."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def _conversation(self) -> str | None:
        controller = self.window.controller
        return controller.conversation_id if controller is not None else None

    def show(self) -> None:
        """The status bar names the provider the shown conversation talks to (its own, else the default)."""
        w = self.window
        if w.runtime is not None:
            settings = w.runtime.provider_settings
            conversation = self._conversation()
            chooser = getattr(w.runtime, "conversation_provider", None)
            if conversation and chooser is not None:
                settings = chooser(conversation)
            w.model_label.setText(f"{settings.model} · {settings.dialect}" if settings.configured else "")
            self._fill_model_picker(settings)
            picker = getattr(w, "agent_picker", None)
            if picker is not None:
                picker.refresh()  # the shown conversation's agent (``chat.agent_picker``)

    def _fill_model_picker(self, current: object) -> None:
        """The composer's provider/model picker: the conversation's provider, the default one, the vision
        provider, and the provider settings."""
        from PySide6.QtWidgets import QMenu

        w = self.window
        button = w.composer.model_button
        model = getattr(current, "model", "")
        w.composer.show_model(
            model, str(getattr(current, "dialect", "")), configured=bool(getattr(current, "configured", False))
        )
        menu = button.menu() or QMenu(button)
        menu.setObjectName("modelPickerMenu")
        menu.clear()
        runtime = w.runtime
        conversation = self._conversation()
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
        menu.addAction("Provider settings…", lambda: w.dialogs.open_provider_dialog())
        button.setMenu(menu)

    def _choose_provider(self, conversation: str | None, settings: object) -> None:
        chooser = getattr(self.window.runtime, "set_conversation_provider", None)
        if conversation and chooser is not None:
            chooser(conversation, settings)
        self.show()

    def apply_settings(self, settings: object) -> None:
        """Put saved settings in force in the window: appearance, shortcuts, limits, the provider label."""
        from desktop_app.ui.theme.appearance import apply_appearance

        w = self.window
        appearance = getattr(settings, "appearance", None)
        if appearance is not None:
            apply_appearance(appearance)
        shortcuts = getattr(settings, "shortcuts", None)
        w.composer.edit.enter_sends = not getattr(shortcuts, "ctrl_enter_sends", False)
        for name, action in w.shortcut_actions.items():
            keys = getattr(shortcuts, name, None)
            if isinstance(keys, str):
                action.setShortcut(QKeySequence(keys, QKeySequence.SequenceFormat.PortableText))
        self.show_round_limit()
        self.show()
        for listener in list(w.settings_listeners):
            listener(settings)

    def show_round_limit(self) -> None:
        settings = getattr(self.window.runtime, "settings", None)
        self.window.view.max_tool_rounds = getattr(settings, "max_tool_rounds", None)

    def on_configured(self) -> None:
        """The provider dialog saved a provider: one chosen while in a conversation applies to it too (it stops
        keeping its stored one)."""
        w = self.window
        conversation = self._conversation()
        setter = getattr(w.runtime, "set_conversation_provider", None)
        if conversation and setter is not None:
            from desktop_app.runtime.errors import SwitchboardError

            try:
                setter(conversation, None)
            except SwitchboardError:  # a conversation the runtime does not know yet: nothing to reset
                pass
        w.empty_states.refresh()  # "Set up a provider" / "Enter the key" in an empty chat goes
        self.show()
        self.show_round_limit()
        w.set_status("Ready")
