"""``switchboard ask --api-key-env``: a model (or a tool) that echoes the provider key without its ``sk-``
prefix or base64-encoded prints ``[redacted]`` there, never the key in either form."""

from __future__ import annotations

import base64
import io
import threading
from pathlib import Path

import pytest

from desktop_app.cli import main
from desktop_app.runtime.redaction import MASK
from tests.support.llm_server import ScriptedLLMServer, text_reply

KEY = "sk-Zq8Wm3Xc7Vb2Nl5Kj9Hg4Fd6Sa1Pe0"
BODY = KEY.removeprefix("sk-")
ENCODED = base64.b64encode(f"Bearer {KEY}".encode()).decode()


def test_ask_masks_the_key_echoed_without_its_prefix_and_in_base64(
    llm_server: ScriptedLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SB_TEST_KEY", KEY)
    llm_server.enqueue(text_reply(f"Your key is {BODY}; encoded: {ENCODED}.", piece=500))  # one delta
    out, err = io.StringIO(), io.StringIO()
    codes: list[int] = []
    argv = ["ask", "--home", str(tmp_path / "h"), "--base-url", llm_server.url, "--api-key-env", "SB_TEST_KEY", "x"]
    thread = threading.Thread(target=lambda: codes.append(main(argv, out=out, err=err)), daemon=True)
    thread.start()
    thread.join(20)
    assert codes == [0], err.getvalue()
    printed = out.getvalue()
    assert BODY not in printed and ENCODED not in printed and KEY not in printed
    assert printed.startswith(f"Your key is {MASK}; encoded: ") and MASK in printed.split("encoded:")[1]
