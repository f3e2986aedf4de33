"""What the host offers servers as an MCP *client*: sampling, elicitation, roots and log collection.

One :class:`ClientFeatures` per host hands each connection its callbacks (:meth:`ClientFeatures.callbacks`).
Registering a callback *is* the capability declaration in the SDK, so a callback is only handed out when
it has a real handler behind it:

* **sampling** — only once the runtime installed a :attr:`ClientFeatures.sampler` (the user's provider);
* **elicitation** — only once the runtime said it answers (:attr:`ClientFeatures.elicitation_enabled`);
* **roots** — always: the answer is the folders the user granted (:meth:`ClientFeatures.set_roots`), maybe none;
* **logging** — always (not a capability): messages become ``ServerLog`` events and a bounded buffer per
  server. On 2026-07-28 connections the client opts in with ``log_level="info"``.

Sampling and elicitation requests become data keyed by a request id (:mod:`.requests`): an event is
published and the UI answers by id. A headless approval mode decides without asking: ``never`` declines
both; ``always`` approves sampling and *cancels* elicitation (the runtime cannot invent the user's data).
The same callbacks serve the legacy server→client push and the 2026-07-28 ``InputRequired`` round trip.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from pydantic import ValidationError

from desktop_app.runtime.errors import InvalidElicitationResponseError
from desktop_app.runtime.host.requests import (
    Answer,
    ElicitationAction,
    ElicitationAnswer,
    RequestBroker,
    RequestKind,
    SamplingAnswer,
)
from desktop_app.runtime.host.sampling import declined, model_hints, sampling_messages
from desktop_app.runtime.host_events import (
    ElicitationRequested,
    HostEvent,
    ResourcesChanged,
    ResourceUpdated,
    SamplingRequested,
    ServerLog,
    ServerRequestClosed,
)
from desktop_app.runtime.redaction import redact_event
from desktop_app.runtime.sdk_types import mtypes

if TYPE_CHECKING:  # the SDK's client half loads with the first connection, not with the runtime
    from mcp.client.session import ClientRequestContext, ElicitationFnT, ListRootsFnT, LoggingFnT, SamplingFnT

logger = logging.getLogger(__name__)

HeadlessMode = Literal["ask", "always", "never"]
Sampler: TypeAlias = "Callable[[str, mtypes.CreateMessageRequestParams], Awaitable[mtypes.CreateMessageResult]]"
"""Runs an approved sampling request for ``server`` on the user's model (installed by the runtime)."""


class ProgressCallback(Protocol):
    """``async (progress, total, message) -> None`` for one tool call, as ``notifications/progress`` reports it
    (the SDK's ``ProgressFnT``, spelled here so that the runtime loads without the SDK's client)."""

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None: ...


DEFAULT_LOG_LIMIT = 1000
CLIENT_LOG_LEVEL: mtypes.LoggingLevel = "info"
_ACTIONS = ("accept", "decline", "cancel")


@dataclass(frozen=True)
class ClientCallbacks:
    """The callbacks one connection's ``mcp.Client`` gets; ``None`` means "not offered" (not advertised)."""

    sampling: SamplingFnT | None = None
    elicitation: ElicitationFnT | None = None
    list_roots: ListRootsFnT | None = None
    logging: LoggingFnT | None = None
    apps: bool = False
    """Advertise MCP Apps (``io.modelcontextprotocol/ui``): views of this server's tools are rendered."""

    @property
    def log_level(self) -> mtypes.LoggingLevel | None:
        """The 2026-07-28 log opt-in: only when log messages have somewhere to go."""
        return CLIENT_LOG_LEVEL if self.logging is not None else None


def check_elicitation_answer(
    params: mtypes.ElicitRequestParams, action: str, content: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The content to send for ``action``, validated against the request; raises
    :class:`InvalidElicitationResponseError` with a message for the user when it does not fit."""
    if action not in _ACTIONS:
        raise InvalidElicitationResponseError(f"Unknown elicitation action {action!r}; use accept, decline or cancel.")
    if action != "accept" or isinstance(params, mtypes.ElicitRequestURLParams):
        if content:
            where = f"'{action}'" if action != "accept" else "a URL request"
            raise InvalidElicitationResponseError(f"Content cannot be sent with {where}; only an accepted form has it.")
        return None
    data: dict[str, Any] = {} if content is None else content
    schema = params.requested_schema
    # jsonschema costs ~4 MB and ~50 ms to import: loaded on the first form answered, not at start-up.
    from jsonschema import exceptions as schema_exceptions  # type: ignore[import-untyped]
    from jsonschema import validators

    validator_class: Any = validators.validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except schema_exceptions.SchemaError as exc:
        raise InvalidElicitationResponseError(
            f"The server's form schema is invalid ({exc.message}); decline or cancel the request instead."
        ) from None
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(data), key=lambda error: [str(part) for part in error.path])
    if errors:
        problems = "; ".join(f"{'/'.join(str(p) for p in e.path) or 'form'}: {e.message}" for e in errors)
        raise InvalidElicitationResponseError(f"The answer does not match the requested form: {problems}.")
    try:
        mtypes.ElicitResult(action="accept", content=data)
    except ValidationError as exc:
        raise InvalidElicitationResponseError(
            "Form answers can only be strings, numbers, booleans or lists of strings: "
            + "; ".join(f"{'/'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        ) from None
    return data


class ClientFeatures:
    """The host's client side: callbacks per server, pending requests, granted roots and server logs."""

    def __init__(self, publish: Callable[[HostEvent], None], *, log_limit: int = DEFAULT_LOG_LIMIT) -> None:
        self._publish = publish
        self._broker = RequestBroker()
        self._log_limit = log_limit
        self._logs: dict[str, deque[ServerLog]] = {}
        self._roots: list[Path] = []
        self._subscriptions: dict[str, set[str]] = {}
        self.sampler: Sampler | None = None
        """Set by the runtime; without it, sampling is not offered to servers that connect."""
        self.elicitation_enabled = False
        """Set by the runtime (it answers elicitations); without it, elicitation is not offered."""
        self.apps_enabled: Callable[[str], bool] = lambda server: False
        """Whether views of ``server``'s tools are rendered (the runtime points it at the Apps setting);
        only then is MCP Apps advertised to that server."""
        self.mode: Callable[[], HeadlessMode] = lambda: "ask"
        """The approval mode to apply to server requests (the runtime points it at its ``ApprovalPolicy``)."""

    def callbacks(self, server: str) -> ClientCallbacks:
        """The callbacks for a new connection to ``server`` (capabilities follow from which are set)."""

        async def sampling(
            context: ClientRequestContext, params: mtypes.CreateMessageRequestParams
        ) -> mtypes.CreateMessageResult | mtypes.CreateMessageResultWithTools | mtypes.ErrorData:
            return await self._sample(server, params)

        async def elicitation(
            context: ClientRequestContext, params: mtypes.ElicitRequestParams
        ) -> mtypes.ElicitResult | mtypes.ErrorData:
            return await self._elicit(server, params)

        async def list_roots(context: ClientRequestContext) -> mtypes.ListRootsResult | mtypes.ErrorData:
            return self.list_roots_result()

        async def log(params: mtypes.LoggingMessageNotificationParams) -> None:
            self._record_log(server, params)

        return ClientCallbacks(
            sampling=sampling if self.sampler is not None else None,
            elicitation=elicitation if self.elicitation_enabled else None,
            list_roots=list_roots,
            logging=log,
            apps=self.apps_enabled(server),
        )

    # -- roots ----------------------------------------------------------------------------------

    @property
    def roots(self) -> list[Path]:
        return list(self._roots)

    def set_roots(self, paths: Iterable[Path | str]) -> bool:
        """Replace the granted folders (absolute, de-duplicated, in order); returns whether they changed."""
        resolved: list[Path] = []
        for path in paths:
            absolute = Path(path).expanduser().resolve()
            if absolute not in resolved:
                resolved.append(absolute)
        changed = resolved != self._roots
        self._roots = resolved
        return changed

    def list_roots_result(self) -> mtypes.ListRootsResult:
        return mtypes.ListRootsResult(
            roots=[mtypes.Root(uri=path.as_uri(), name=path.name or str(path)) for path in self._roots]
        )

    # -- logs -----------------------------------------------------------------------------------

    def server_log(self, server: str) -> list[ServerLog]:
        """The last (at most ``log_limit``) log messages ``server`` sent, oldest first (kept across restarts)."""
        return list(self._logs.get(server, ()))

    def _record_log(self, server: str, params: mtypes.LoggingMessageNotificationParams) -> None:
        # Kept redacted: server_log() hands the buffer out, not only the (redacting) event bus.
        event = redact_event(ServerLog(server=server, level=params.level, logger=params.logger, data=params.data))
        self._logs.setdefault(server, deque(maxlen=self._log_limit)).append(event)
        self._publish(event)

    # -- resource subscriptions -----------------------------------------------------------------

    def subscriptions(self, server: str) -> set[str]:
        """The resource URIs the user follows on ``server`` (a connection re-subscribes them when it starts)."""
        return self._subscriptions.setdefault(server, set())

    def resource_updated(self, server: str, uri: str) -> None:
        self._publish(ResourceUpdated(server=server, uri=uri))

    def resources_changed(self, server: str) -> None:
        """``server`` said its resource list changed (MCP App views are fetched again)."""
        self._publish(ResourcesChanged(server=server))

    # -- server requests ------------------------------------------------------------------------

    def pending_requests(self, kind: RequestKind | None = None) -> list[str]:
        """Ids of the sampling/elicitation requests waiting for the user, oldest first."""
        return self._broker.pending(kind)

    def answer_sampling(self, request_id: str, approved: bool, reason: str | None = None) -> None:
        """Approve or decline a pending sampling request; unknown ids raise ``UnknownServerRequestError``."""
        self._broker.answer(request_id, SamplingAnswer(approved, reason))

    def answer_elicitation(
        self, request_id: str, action: ElicitationAction, content: dict[str, Any] | None = None
    ) -> None:
        """Answer a pending elicitation. The content is checked against the requested schema first: invalid
        content raises ``InvalidElicitationResponseError`` and the request stays open for a corrected answer."""
        pending = self._broker.get(request_id, "elicitation")
        checked = check_elicitation_answer(pending.details, action, content)
        self._broker.answer(request_id, ElicitationAnswer(action, checked))

    async def _ask(self, kind: RequestKind, server: str, details: Any, event: Callable[[str], HostEvent]) -> Answer:
        pending = self._broker.open(kind, server, details)
        outcome: Literal["answered", "cancelled"] = "cancelled"
        try:
            self._publish(event(pending.request_id))
            answer = await pending.future
            outcome = "answered"
            return answer
        finally:
            self._broker.close(pending.request_id)
            self._publish(ServerRequestClosed(server=server, request_id=pending.request_id, outcome=outcome))

    async def _sample(
        self, server: str, params: mtypes.CreateMessageRequestParams
    ) -> mtypes.CreateMessageResult | mtypes.ErrorData:
        sampler = self.sampler
        if sampler is None:  # the runtime went away after the connection was made
            return mtypes.ErrorData(code=mtypes.INVALID_REQUEST, message="Sampling is not available in this client")
        mode = self.mode()
        if mode == "never":
            return declined("declined by policy (--approve never)")
        if mode == "ask":
            answer = await self._ask(
                "sampling",
                server,
                params,
                lambda request_id: SamplingRequested(
                    server=server,
                    request_id=request_id,
                    messages=sampling_messages(params),
                    system_prompt=params.system_prompt,
                    max_tokens=params.max_tokens,
                    model_hints=model_hints(params),
                    temperature=params.temperature,
                ),
            )
            if not isinstance(answer, SamplingAnswer) or not answer.approved:
                return declined(answer.reason if isinstance(answer, SamplingAnswer) else None)
        try:
            return await sampler(server, params)
        except Exception as exc:  # the provider failed: tell the server, keep the connection
            logger.info("sampling for MCP server '%s' failed: %s", server, exc)
            return mtypes.ErrorData(code=mtypes.INTERNAL_ERROR, message=f"The client's model could not answer: {exc}")

    async def _elicit(self, server: str, params: mtypes.ElicitRequestParams) -> mtypes.ElicitResult:
        mode = self.mode()
        if mode == "never":
            return mtypes.ElicitResult(action="decline")
        if mode == "always":
            return mtypes.ElicitResult(action="cancel")  # approving cannot invent the user's data
        url = params.url if isinstance(params, mtypes.ElicitRequestURLParams) else None
        answer = await self._ask(
            "elicitation",
            server,
            params,
            lambda request_id: ElicitationRequested(
                server=server,
                request_id=request_id,
                message=params.message,
                mode="url" if url is not None else "form",
                requested_schema=params.requested_schema if isinstance(params, mtypes.ElicitRequestFormParams) else {},
                url=url,
                elicitation_id=params.elicitation_id if isinstance(params, mtypes.ElicitRequestURLParams) else None,
            ),
        )
        if not isinstance(answer, ElicitationAnswer):  # pragma: no cover - the broker checks the kind
            return mtypes.ElicitResult(action="cancel")
        return mtypes.ElicitResult(action=answer.action, content=answer.content)


__all__ = [
    "CLIENT_LOG_LEVEL",
    "DEFAULT_LOG_LIMIT",
    "ClientCallbacks",
    "ClientFeatures",
    "HeadlessMode",
    "ProgressCallback",
    "Sampler",
    "check_elicitation_answer",
]
