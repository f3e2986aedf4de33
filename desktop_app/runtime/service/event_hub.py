"""The fan-out of every runtime event to its subscribers, through the one redaction step.

:class:`EventHub` owns the listeners. Before an event goes out it adds ``Usage`` to the conversation's
totals and puts the totals, hit rate and cost on ``RunFinished``; then it redacts it (the one step before the
store, the UI and the CLI see it). A broken listener never breaks the run or the other listeners.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from desktop_app.runtime import events as ev
from desktop_app.runtime.redaction import redact_event
from desktop_app.runtime.service.conversations import ConversationTable
from desktop_app.runtime.settings import ProviderSettings

log = logging.getLogger("desktop_app.runtime.service")

Listener = Callable[["ev.Event"], None]  # a string: the protocol loads with its first event (events package)


class EventHub:
    """Subscribers and the publish step (usage accounting, redaction, logging of errors)."""

    def __init__(self, conversations: ConversationTable, provider_of: Callable[[str], ProviderSettings]) -> None:
        self._conversations = conversations
        self._provider_of = provider_of
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def publish(self, event: ev.Event) -> None:
        event = self._account(event)
        event = redact_event(event)  # the one redaction step before the store, the UI and the CLI see it
        if isinstance(event, ev.Error):
            log.warning("run %s failed (%s): %s", event.run_id, event.code, event.message)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken listener must not break the run or the other listeners
                log.exception("event listener failed on %s", event.kind)

    def _account(self, event: ev.Event) -> ev.Event:
        """Add ``Usage`` to the conversation's totals; put the totals, hit rate and cost on ``RunFinished``."""
        from desktop_app.runtime.usage import add_usage, summarize

        if not isinstance(event, ev.Usage | ev.RunFinished):
            return event
        conv = self._conversations.get(event.conversation_id)
        if conv is None:
            return event
        if isinstance(event, ev.Usage):
            conv.usage = add_usage(conv.usage, event.usage)
            return event
        chosen = self._provider_of(conv.id)
        return event.model_copy(update={"conversation_usage": summarize(conv.usage, chosen.base_url, chosen.model)})
