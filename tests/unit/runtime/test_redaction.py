"""The one redaction step: known secrets and key-shaped strings are masked, ordinary words are not."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from desktop_app.log import setup_logging
from desktop_app.runtime import events as ev
from desktop_app.runtime.clock import RetrySleeper
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.providers.pool import ProviderPool
from desktop_app.runtime.redaction import MASK, redact, redact_event, remember
from desktop_app.runtime.settings import ProviderSettings

PLAIN = "correcthorsebatterystaple99"  # not key-shaped: only knowing it masks it


def test_a_known_secret_is_masked_anywhere_even_when_it_is_not_key_shaped() -> None:
    assert redact(f"HTTP 401: bad key {PLAIN}!") == f"HTTP 401: bad key {PLAIN}!"
    remember(PLAIN + "\r\n")
    assert redact(f"HTTP 401: bad key {PLAIN}!") == f"HTTP 401: bad key {MASK}!"
    assert PLAIN not in redact(json.dumps({"echo": PLAIN}))


def test_keyring_values_are_known_secrets_whether_read_or_written(memory_keyring: object) -> None:
    credentials = Credentials()
    credentials.set("mcp:docs:TOKEN", "writtenValue123")
    assert "writtenValue123" not in redact("server said writtenValue123")
    memory_keyring.store[("switchboard", "mcp:docs:API")] = "readValue4567"  # type: ignore[attr-defined]
    assert credentials.get("mcp:docs:API") == "readValue4567"
    assert redact("echo readValue4567") == f"echo {MASK}"


def test_oauth_token_records_register_their_tokens_not_their_url() -> None:
    record = {"url": "https://mcp.example.com", "access_token": "at-9f8e7d6c5b", "refresh_token": "rt-1a2b3c4d5e"}
    remember(json.dumps(record))
    text = redact("GET https://mcp.example.com failed with at-9f8e7d6c5b / rt-1a2b3c4d5e")
    assert text == f"GET https://mcp.example.com failed with {MASK} / {MASK}"


def test_provider_keys_are_trimmed_and_remembered(monkeypatch: object) -> None:
    import os

    os.environ["I8A_TEST_KEY"] = "  envKeyValue789\r\n"
    try:
        pool = ProviderPool(Credentials(), RetrySleeper())
        key = pool.api_key(ProviderSettings(base_url="http://x/v1", model="m", api_key_env="I8A_TEST_KEY"))
    finally:
        del os.environ["I8A_TEST_KEY"]
    assert key == "envKeyValue789"
    assert redact("got envKeyValue789") == f"got {MASK}"


def test_log_redaction_keeps_ordinary_words(tmp_path: Path) -> None:
    path = setup_logging(tmp_path)
    logging.getLogger("desktop_app.runtime.credentials").warning("No usable system keyring (KeyringError)")
    logging.getLogger("switchboard.test").warning("token: expired for this user; api_key=abc123def")
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = path.read_text()
    assert "credentials: No usable system keyring" in text
    assert "token: expired for this user" in text
    assert "abc123def" not in text
    assert redact("Credentials: No usable keyring") == "Credentials: No usable keyring"
    assert redact("client_secret: abcdef") == f"client_secret: {MASK}"
    assert redact("Basic authentication failed") == "Basic authentication failed"
    assert redact("Authorization: Bearer abcdefghijkl was refused") == f"Authorization: Bearer {MASK} was refused"


def test_log_records_mask_known_secrets(tmp_path: Path) -> None:
    path = setup_logging(tmp_path)
    remember(PLAIN)
    logging.getLogger("switchboard.test").error("provider answered %s", PLAIN)
    for handler in logging.getLogger().handlers:
        handler.flush()
    assert PLAIN not in path.read_text()


def test_events_are_redacted_error_text_fully_model_text_only_for_known_secrets() -> None:
    remember(PLAIN)
    error = ev.Error(
        conversation_id="c", run_id="r", code="provider_http_error", message=f"echo {PLAIN} Bearer abcdefgh12345"
    )
    assert redact_event(error).message == f"echo {MASK} Bearer {MASK}"
    failed = ev.ToolResult(
        conversation_id="c", run_id="r", tool_call_id="t", server="s", tool="x", text="token=zz99yy88", is_error=True
    )
    assert redact_event(failed).text == f"token={MASK}"
    doc = ev.ContentDelta(conversation_id="c", run_id="r", text=f"set api_key = your-key ({PLAIN})")
    assert redact_event(doc).text == f"set api_key = your-key ({MASK})"
    state = ev.ServerStateChanged(server="s", state="failed", error=f"exited: {PLAIN}")
    assert redact_event(state).error == f"exited: {MASK}"


def test_every_runtime_error_message_is_redacted_when_it_is_made() -> None:
    from desktop_app.runtime.errors import ProviderHTTPError, ServerStartError

    remember(PLAIN)
    error = ProviderHTTPError(401, '{"error": "Incorrect API key provided: ' + PLAIN + '"}')
    assert PLAIN not in str(error) and "HTTP 401" in str(error) and MASK in str(error)
    assert PLAIN in error.body  # the raw body stays for Retry-After parsing, never in the message
    assert PLAIN not in str(ServerStartError(f"exited: Authorization: Bearer {PLAIN}"))


@pytest.mark.asyncio
async def test_fetching_models_with_a_typed_key_masks_it_in_the_error() -> None:
    import httpx

    from desktop_app.runtime.providers.discovery import ModelListError, list_models

    typed = "typedKeyNotSavedYet123"

    def echo(request: httpx.Request) -> httpx.Response:
        sent = request.headers["Authorization"]
        return httpx.Response(401, json={"error": {"message": f"bad key: {sent.removeprefix('Bearer ')}"}})

    async with httpx.AsyncClient(transport=httpx.MockTransport(echo)) as client:
        with pytest.raises(ModelListError) as caught:
            await list_models("https://api.example.com/v1", f" {typed}\n", "openai", client=client)
    assert typed not in str(caught.value) and "401" in str(caught.value)


def test_nested_event_data_is_redacted_too() -> None:
    remember(PLAIN)
    call = ev.ToolCall(
        conversation_id="c", run_id="r", tool_call_id="t", name="x", server="s", tool="x", arguments={"k": [PLAIN]}
    )
    assert redact_event(call).arguments == {"k": [MASK]}
    log = ev.ServerLog(server="s", level="error", data={"message": "auth failed", "token": "Bearer abcdefgh1234"})
    assert redact_event(log).data == {"message": "auth failed", "token": f"Bearer {MASK}"}


def test_secrets_inside_nested_models_are_redacted() -> None:
    remember(PLAIN)
    info = ev.RetryInfo(
        attempt=1, max_attempts=3, delay_s=1.0, stage="request", reason="429", message=f"quota of key {PLAIN}"
    )
    retry = redact_event(ev.RetryScheduled(conversation_id="c", run_id="r", retry=info))
    assert retry.retry.message == f"quota of key {MASK}" and retry.retry.attempt == 1
    from desktop_app.runtime.hooks.notices import HookNotice

    notice = HookNotice(kind="mutated", event="PreToolUse", message=f"saw {PLAIN}", before={"k": PLAIN}, after=PLAIN)
    result = ev.ToolResult(
        conversation_id="c", run_id="r", tool_call_id="t", server="s", tool="x", text="ok", hooks=[notice]
    )
    [cleaned] = redact_event(result).hooks
    assert (cleaned.message, cleaned.before, cleaned.after) == (f"saw {MASK}", {"k": MASK}, MASK)
    untouched = ev.RetryScheduled(conversation_id="c", run_id="r", retry=info.model_copy(update={"message": "x"}))
    assert redact_event(untouched) is untouched  # nothing to mask: the same object


def test_names_around_a_secret_are_kept_only_values_are_masked() -> None:
    """Issue 22 item 14: an error naming a variable kept the name but lost its text to the mask."""
    assert redact("variable 'CONTEXT7_API_KEY:-' is not set") == "variable 'CONTEXT7_API_KEY:-' is not set"
    assert redact("env.GITHUB_TOKEN=${GITHUB_TOKEN} is empty") == "env.GITHUB_TOKEN=${GITHUB_TOKEN} is empty"
    assert redact("token: ${keyring:mcp:gh:TOKEN} missing") == "token: ${keyring:mcp:gh:TOKEN} missing"
    assert redact("API_KEY=%API_KEY% on Windows") == "API_KEY=%API_KEY% on Windows"
    assert redact("set OPENAI_API_KEY=$OPENAI_API_KEY first") == "set OPENAI_API_KEY=$OPENAI_API_KEY first"
    # values are still masked, the name beside them kept
    assert redact("CONTEXT7_API_KEY: ctx7sk-0123456789") == f"CONTEXT7_API_KEY: {MASK}"
    assert redact("${CONTEXT7_API_KEY:-ctx7default99}") == "${CONTEXT7_API_KEY:" + MASK + "}"
    assert redact("password: $ecretPass1") == f"password: {MASK}"
