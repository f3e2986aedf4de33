"""The Runtime facade: the only object the UI and the CLI hold.

It owns the conversations, the MCP host, the approval broker and the provider settings; it starts runs
(one active run per conversation), fans events out to subscribers and takes approval answers by
tool-call id.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app.runtime import events as ev
from desktop_app.runtime.approvals import ApprovalBroker, ApprovalPolicy, Decision, Grant, GrantStore, Scope
from desktop_app.runtime.clock import RetrySleeper
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ConversationBusyError, RunError
from desktop_app.runtime.messages import Message, SystemMessage, ToolCallRequest, ToolMessage
from desktop_app.runtime.providers.base import Provider
from desktop_app.runtime.run import Conversation, RunLoop, RunOptions, RunOutcome, ToolHost, pending_tool_calls
from desktop_app.runtime.settings import ProviderSettings, Settings, save_settings

if TYPE_CHECKING:
    from desktop_app.runtime.host import Host

log = logging.getLogger(__name__)

Listener = Callable[[ev.Event], None]
ProviderFactory = Callable[[ProviderSettings, str | None], Provider]
"""Builds a provider from settings and an API key; the default is ``providers.factory.make_provider``."""


class Runtime:
    """Starts runs, answers approvals, cancels, and publishes every event to its subscribers."""

    def __init__(
        self,
        *,
        settings: Settings,
        host: Host | ToolHost,
        credentials: Credentials | None = None,
        settings_path: Path | None = None,
        policy: ApprovalPolicy | None = None,
        grants: GrantStore | None = None,
        provider_factory: ProviderFactory | None = None,
        api_key_override: str | None = None,
    ) -> None:
        self._settings = settings
        self._host = host
        self._credentials = credentials or Credentials()
        self._settings_path = settings_path
        self._policy = policy or ApprovalPolicy("ask", auto_approve_read_only=settings.auto_approve_read_only)
        self._provider_factory = provider_factory
        self._api_key_override = api_key_override
        self._broker = ApprovalBroker()
        self.grants = grants or GrantStore()
        self.sleeper = RetrySleeper()
        self._listeners: list[Listener] = []
        self._conversations: dict[str, Conversation] = {}
        self._tasks: dict[str, asyncio.Task[RunOutcome]] = {}
        self._provider: Provider | None = None
        self._retired: list[Provider] = []

    # -- settings --------------------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def provider_settings(self) -> ProviderSettings:
        return self._settings.provider

    @property
    def host(self) -> Host | ToolHost:
        return self._host

    @property
    def credentials(self) -> Credentials:
        return self._credentials

    def configure_provider(self, settings: ProviderSettings, api_key: str | None) -> None:
        """Save the provider settings (file) and the key (keyring; never a file). ``None`` keeps the key."""
        if api_key is not None:
            if api_key:
                self._credentials.set(settings.key_name, api_key)
            else:
                self._credentials.delete(settings.key_name)
        self._settings = self._settings.model_copy(update={"provider": settings})
        if self._settings_path is not None:
            save_settings(self._settings_path, self._settings)
        self._drop_provider()

    @property
    def policy(self) -> ApprovalPolicy:
        return self._policy

    def set_auto_approve_read_only(self, enabled: bool) -> None:
        """Turn auto-approval of ``readOnlyHint`` tools on or off (saved with the settings)."""
        self._settings = self._settings.model_copy(update={"auto_approve_read_only": enabled})
        self._policy = replace(self._policy, auto_approve_read_only=enabled)
        if self._settings_path is not None:
            save_settings(self._settings_path, self._settings)

    def api_key(self) -> str | None:
        provider = self._settings.provider
        if self._api_key_override is not None:
            return self._api_key_override
        if provider.api_key_env:
            value = os.environ.get(provider.api_key_env)
            if value:
                return value
        return self._credentials.get(provider.key_name)

    def _get_provider(self) -> Provider:
        if self._provider is None:
            if self._provider_factory is not None:
                self._provider = self._provider_factory(self._settings.provider, self.api_key())
            else:
                from desktop_app.runtime.providers.factory import make_provider

                self._provider = make_provider(self._settings.provider, self.api_key(), sleep=self.sleeper.sleep)
        return self._provider

    def _drop_provider(self) -> None:
        """Retire the current provider; runs still using it finish, and ``aclose`` closes it."""
        if self._provider is not None:
            self._retired.append(self._provider)
            self._provider = None

    # -- events ----------------------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _publish(self, event: ev.Event) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken listener must not break the run or the other listeners
                log.exception("event listener failed on %s", event.kind)

    # -- conversations and runs ------------------------------------------------------------------------

    def new_conversation(self) -> str:
        conv = Conversation(id=uuid.uuid4().hex)
        if self._settings.system_prompt:
            conv.messages.append(SystemMessage(content=self._settings.system_prompt))
        self._conversations[conv.id] = conv
        return conv.id

    def conversation(self, conversation_id: str) -> Conversation:
        try:
            return self._conversations[conversation_id]
        except KeyError:
            raise RunError(f"Conversation {conversation_id!r} does not exist.") from None

    def is_running(self, conversation_id: str) -> bool:
        conv = self._conversations.get(conversation_id)
        return conv is not None and conv.active_run is not None

    def load_conversation(self, conversation_id: str, messages: list[Message]) -> Conversation:
        """Make a stored conversation (e.g. from the store after a restart) available to runs."""
        conv = self._conversations.get(conversation_id)
        if conv is None:
            conv = Conversation(id=conversation_id, messages=list(messages))
            self._conversations[conversation_id] = conv
        elif conv.active_run is None:
            conv.messages = list(messages)
        return conv

    def pending_tool_calls(self, conversation_id: str) -> list[ToolCallRequest]:
        """Tool calls of a paused turn that have no result yet (they wait for ``continue_run``)."""
        return pending_tool_calls(self.conversation(conversation_id).messages)

    async def run(self, conversation_id: str, prompt: str) -> RunOutcome:
        """Run one user turn to its end. A second run on a busy conversation is refused."""
        return await self._start(conversation_id, prompt)

    async def continue_run(self, conversation_id: str) -> RunOutcome:
        """Continue a paused turn: ask again for pending approvals (also after a restart), or, after the
        tool-round limit, give the model another round of N."""
        return await self._start(conversation_id, None)

    async def _start(self, conversation_id: str, prompt: str | None) -> RunOutcome:
        conv = self.conversation(conversation_id)
        if conv.active_run is not None:
            raise ConversationBusyError(
                f"A run is already active in this conversation (run {conv.active_run}). "
                "Wait for it to finish or stop it first."
            )
        pending = pending_tool_calls(conv.messages)
        if prompt is not None:
            # A new prompt abandons a paused turn: its calls go back to the model as not run.
            for call in pending:
                conv.messages.append(
                    ToolMessage(tool_call_id=call.id, content="Not run: the user moved on.", is_error=True)
                )
            pending = []
        run_id = uuid.uuid4().hex
        conv.active_run = run_id
        options = RunOptions(
            model=self._settings.provider.model,
            max_tool_rounds=self._settings.max_tool_rounds,
            thinking=self._settings.provider.thinking,
            reasoning_effort=self._settings.provider.reasoning_effort,
        )
        loop = RunLoop(
            conversation=conv,
            run_id=run_id,
            provider=self._get_provider(),
            host=self._host,
            broker=self._broker,
            policy=self._policy,
            grants=self.grants,
            options=options,
            emit=self._publish,
        )
        task = asyncio.ensure_future(loop.execute(prompt, pending=pending))
        self._tasks[conversation_id] = task
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if not task.cancelled() and not task.done():
                task.cancel()  # our caller was cancelled: stop the run too
            content = loop.keep_partial()
            self._publish(ev.RunFinished(conversation_id=conv.id, run_id=run_id, reason="cancelled", content=content))
            if task.cancelled() and not _current_task_cancelling():
                return RunOutcome(run_id, "cancelled", content)
            raise
        finally:
            conv.active_run = None
            self._tasks.pop(conversation_id, None)

    def answer(
        self,
        tool_call_id: str,
        *,
        approved: bool,
        reason: str | None = None,
        scope: Scope = "once",
        arguments: dict[str, Any] | None = None,
    ) -> None:
        """Answer a pending approval by tool-call id. Unknown or answered ids raise ``UnknownToolCallError``.

        ``scope`` widens an approval (this conversation, this tool always, the whole server);
        ``arguments`` replaces the model's arguments (recorded and shown as an edit).
        """
        self._broker.answer(tool_call_id, Decision(approved, reason, "user", scope, arguments))

    def revoke_grant(self, grant: Grant) -> bool:
        return self.grants.revoke(grant)

    def retry_now(self, conversation_id: str) -> bool:
        """Cut short the conversation's pending retry wait. Returns whether one was waiting."""
        return self.sleeper.wake(conversation_id)

    def pending_approvals(self, conversation_id: str | None = None) -> list[str]:
        return self._broker.pending(conversation_id)

    def cancel(self, conversation_id: str) -> None:
        """Stop the conversation's active run: closes the stream, drops pending approvals."""
        task = self._tasks.get(conversation_id)
        if task is not None and not task.done():
            task.cancel()

    async def aclose(self) -> None:
        for conversation_id in list(self._tasks):
            self.cancel(conversation_id)
        tasks = [t for t in self._tasks.values() if not t.done()]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        providers = [*self._retired, *([self._provider] if self._provider else [])]
        self._provider, self._retired = None, []
        for provider in providers:
            await provider.aclose()
        closer = getattr(self._host, "aclose", None)
        if closer is not None:
            await closer()


def _current_task_cancelling() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
