"""In-process servers sign their request state with the standard library (``runtime/in_process.py``): no
AES-GCM codec (and no initialisation of ``cryptography``'s OpenSSL bindings, ~1.4 MB) for a token that never
leaves the process; a token the server did not mint, or one changed, is still refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from mcp.server import request_state
from mcp.server.request_state import InvalidRequestState

from desktop_app.assembly import Assembly, assemble
from desktop_app.paths import AppPaths
from desktop_app.runtime.in_process import SignedState


def test_a_sealed_state_round_trips() -> None:
    codec = SignedState()
    for payload in (b"", b"{}", b'{"step": 2, "answers": ["yes"]}', bytes(range(256))):
        assert codec.unseal(codec.seal(payload)) == payload


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t.replace("s1.", "s2.", 1),  # another format
        lambda t: t[:-2] + ("AA" if not t.endswith("AA") else "BB"),  # the tag changed
        lambda t: "s1." + "e30" + t[t.rindex(".") :],  # another payload under the old tag
        lambda t: t + ".x",  # one part too many
        lambda t: "s1.%%%.%%%",  # not base64url
        lambda t: "",
    ],
)
def test_a_changed_or_foreign_token_is_refused(change: object) -> None:
    codec = SignedState()
    token = codec.seal(b'{"step": 1}')
    assert callable(change)
    with pytest.raises(InvalidRequestState):
        codec.unseal(change(token))


def test_a_token_of_another_key_is_refused() -> None:
    with pytest.raises(InvalidRequestState):
        SignedState().unseal(SignedState().seal(b"{}"))


def test_a_short_key_is_refused() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        SignedState(b"short")


@pytest_asyncio.fixture
async def built(tmp_path: Path) -> AsyncIterator[Assembly]:
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs").ensure()
    assembly = assemble(paths, strict=True)
    yield assembly
    await assembly.aclose()


@pytest.mark.asyncio
async def test_no_builtin_server_makes_an_aes_gcm_codec(built: Assembly, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[object] = []
    original = request_state.AESGCMRequestStateCodec.__init__

    def counting(self: request_state.AESGCMRequestStateCodec, *args: object, **kwargs: object) -> None:
        made.append(self)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(request_state.AESGCMRequestStateCodec, "__init__", counting)
    await built.host.ensure_builtins()
    ready = [name for name, status in built.host.states().items() if status.builtin and status.state == "ready"]
    assert "switchboard.system" in ready and "switchboard.tasks" in ready and "switchboard.workflows" in ready
    assert made == []
    request_state.RequestStateSecurity.ephemeral()  # what MCPServer() installs when not told otherwise
    assert len(made) == 1
