"""The exception tree of the runtime. Every message says what happened and what to do.

SwitchboardError
├── ConfigError                 a settings or mcp.json file is broken (path, line, column, problem)
├── CredentialError             the keyring refused a read or write
│   └── MissingKeyError         the provider needs an API key and none is set (nothing is sent)
├── ProviderError               the model endpoint failed
│   ├── ProviderHTTPError       a non-2xx answer (status, headers, body head)
│   ├── ProviderNetworkError    connect/read failure before any HTTP answer
│   ├── ProviderStreamError     an error object inside the SSE stream
│   ├── UnexpectedResponseError a 2xx answer that is not an event stream (never retried)
│   ├── StreamError             the SSE stream broke; ``after_progress`` says whether output was emitted
│   │   ├── StreamDisconnected  ended before a terminal frame
│   │   └── StreamStalled       no model output for the idle timeout
│   └── EmptyCompletionError    the model returned no content and no tool call (``retryable`` if reasoning only)
├── HostError                   the MCP host failed
│   ├── ServerNotFoundError
│   ├── ToolNotFoundError
│   ├── ServerStartError
│   ├── ServerRequestError      a resource/prompt request failed, or the server is not running
│   ├── UnknownServerRequestError  an answer for an unknown or already-answered sampling/elicitation id
│   └── InvalidElicitationResponseError  elicitation content that does not match the requested schema
└── RunError                    the run loop refused or failed
    ├── ConversationBusyError   a second run on a conversation that has one active
    └── UnknownToolCallError    an answer for an unknown or already-answered tool-call id
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from desktop_app.runtime.error_body import error_message
from desktop_app.runtime.redaction import redact


class SwitchboardError(Exception):
    """Base of every error the runtime raises on purpose. Its message passes the redaction step when it is
    made, so no secret reaches a log, the store or the screen through ``str(error)``."""

    code = "switchboard_error"

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(arg) if isinstance(arg, str) else arg for arg in args))


class ConfigError(SwitchboardError):
    """A configuration file is unusable. The file is never overwritten."""

    code = "config_error"

    def __init__(self, path: Path | str, problem: str, *, line: int | None = None, column: int | None = None) -> None:
        self.path = Path(path)
        self.problem = problem
        self.line = line
        self.column = column
        where = str(self.path)
        if line is not None:
            where += f":{line}"
            if column is not None:
                where += f":{column}"
        super().__init__(f"{where}: {problem}")


class CredentialError(SwitchboardError):
    code = "credential_error"


class MissingKeyError(CredentialError):
    """The provider needs an API key and none is set (e.g. it was kept for one session only): nothing was sent.

    Its message ends with ``HINT`` (what to do at the command line); the window puts its own in its place."""

    code = "missing_api_key"
    HINT = (
        "Enter the key in the app (Settings → Provider…; without a working system keyring it is kept for one "
        "session only) or pass --api-key-env VAR."
    )


class ProviderError(SwitchboardError):
    code = "provider_error"
    retryable = False


class ProviderHTTPError(ProviderError):
    """The endpoint answered with a non-2xx status."""

    code = "provider_http_error"

    def __init__(self, status: int, body: str, headers: Mapping[str, str] | None = None) -> None:
        self.status = status
        self.body = body
        self.headers = dict(headers or {})
        self.retryable = status in {429, 500, 502, 503, 504, 529}
        self.provider: str | None = None
        super().__init__(self._describe())

    def name_provider(self, provider: str) -> None:
        """Say who answered ("DeepSeek") in the message."""
        self.provider = provider
        self.args = (self._describe(),)

    def _describe(self) -> str:
        head = error_message(self.body) or ""
        hint = {
            400: "the request was rejected; check the model name and the conversation",
            401: "the API key was refused; set it again in the provider settings",
            403: "the API key has no access to this model",
            404: "the endpoint or model was not found; check the base URL and the model name",
            429: "rate limited; wait a moment and try again",
        }.get(self.status, "the provider had a problem; try again later" if self.status >= 500 else "")
        text = f"HTTP {self.status} from {self.provider or 'the model provider'}"
        if hint:
            text += f" — {hint}"
        if head:
            text += f": {head}"
        return text


class ProviderStreamError(ProviderError):
    """The provider put an error object in the event stream (``data: {"error": …}``); partial output stands."""

    code = "provider_stream_error"


class UnexpectedResponseError(ProviderError):
    """A 2xx answer that is not an event stream (an HTML page, a JSON body): a proxy or a wrong base URL."""

    code = "unexpected_response"


class ProviderNetworkError(ProviderError):
    code = "provider_network_error"
    retryable = True


class StreamError(ProviderError):
    """The response stream broke. After progress the partial output stands and there is no retry."""

    code = "stream_error"

    def __init__(self, message: str, *, after_progress: bool) -> None:
        self.after_progress = after_progress
        self.retryable = not after_progress
        super().__init__(message)


class StreamDisconnected(StreamError):
    code = "stream_disconnected"


class StreamStalled(StreamError):
    code = "stream_stalled"


class EmptyCompletionError(ProviderError):
    code = "empty_completion"

    def __init__(self, message: str, *, retryable: bool) -> None:
        self.retryable = retryable
        super().__init__(message)

    @classmethod
    def no_answer(cls, reasoning: str) -> EmptyCompletionError:
        """A response with no answer and no tool call: worth a new stream when the model only reasoned."""
        if reasoning.strip():
            return cls("The model reasoned but returned no answer and no tool call. Try again.", retryable=True)
        return cls("The model returned no answer and no tool call. Try again or rephrase the request.", retryable=False)


class HostError(SwitchboardError):
    code = "host_error"


class ServerNotFoundError(HostError):
    code = "server_not_found"


class ToolNotFoundError(HostError):
    code = "tool_not_found"


class ServerStartError(HostError):
    code = "server_start_error"


class ServerRequestError(HostError):
    """A user-initiated request to a server (resources, prompts, subscriptions) failed."""

    code = "server_request_error"


class UnknownServerRequestError(HostError):
    """An answer for a sampling or elicitation request id that is unknown or already answered."""

    code = "unknown_server_request"


class InvalidElicitationResponseError(HostError):
    """Elicitation content that does not match the schema the server asked for; nothing was sent."""

    code = "invalid_elicitation_response"


class RunError(SwitchboardError):
    code = "run_error"


class ConversationBusyError(RunError):
    code = "conversation_busy"


class UnknownToolCallError(RunError):
    code = "unknown_tool_call"
