"""Provider error bodies become a name and a one-line message; the raw body stays for a details view."""

from __future__ import annotations

from desktop_app.runtime.providers.error_text import error_message, provider_name, raw_details


def test_provider_names() -> None:
    assert provider_name("https://api.deepseek.com") == "DeepSeek"
    assert provider_name("https://api.deepseek.com/beta") == "DeepSeek"
    assert provider_name("https://api.openai.com/v1/") == "OpenAI"
    assert provider_name("https://llm.internal.example/v1") == "llm.internal.example"


def test_messages_from_the_common_error_shapes() -> None:
    assert error_message('{"error": {"message": "Rate limit reached", "type": "rate_limit"}}') == (
        "Rate limit reached (rate_limit)"
    )
    assert error_message('{"error": "Service busy"}') == "Service busy"
    assert error_message('{"detail": [{"msg": "field required"}]}') == "field required"
    assert error_message("upstream connect error\nmore") == "upstream connect error"
    assert error_message("<html><body>502 Bad Gateway</body></html>") is None
    assert error_message("") is None and raw_details("  ") is None


def test_keys_in_an_error_body_are_redacted() -> None:
    body = '{"error": {"message": "Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz123456"}}'
    assert "abcdefghijklmnop" not in (error_message(body) or "")
    assert "abcdefghijklmnop" not in (raw_details(body) or "")
