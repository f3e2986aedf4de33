"""A known secret is masked in the forms it is echoed in: without its vendor prefix (``sk-``, ``ghp_`` …) and
base64-encoded, alone or inside a longer encoded text at any alignment; short fragments are not masked."""

from __future__ import annotations

import base64

import pytest

from desktop_app.runtime.redaction import MASK, redact, redact_known, remember

KEY = "sk-proj-Q7vXk2Lm9Pz4Rt8Wb3Nc6Yd1"
BODY = KEY.removeprefix("sk-proj-")


def test_a_key_echoed_without_its_prefix_is_masked() -> None:
    remember(KEY)
    assert redact_known(f"the key is {BODY}.") == f"the key is {MASK}."
    assert redact_known(f"key: proj-{BODY}") == f"key: {MASK}"
    assert BODY not in redact(f"echo {BODY}")


@pytest.mark.parametrize("before", ["", "x", "xy", "Authorization: Bearer ", "user:"])
@pytest.mark.parametrize("encode", [base64.b64encode, base64.urlsafe_b64encode])
def test_a_key_in_base64_is_masked_at_every_alignment(before: str, encode: object) -> None:
    remember(KEY)
    encoded = encode((before + KEY + " and more").encode()).decode()  # type: ignore[operator]
    cleaned = redact_known(f"blob {encoded} end")
    assert MASK in cleaned and encoded not in cleaned
    shown = len(cleaned.replace(MASK, "")) - len("blob  end")
    assert len(encoded) - shown >= len(KEY) * 4 // 3 - 8  # all but a byte or two at each end of the key


def test_the_key_alone_in_base64_and_without_prefix_in_base64() -> None:
    remember(KEY)
    for text in (KEY, BODY):
        encoded = base64.b64encode(text.encode()).decode()
        assert redact_known(encoded) == MASK


def test_short_fragments_are_not_masked() -> None:
    remember("sk-abc12345")  # the part after "sk-" is too short to stand alone
    assert redact_known("abc12345 is an ordinary token") == "abc12345 is an ordinary token"
