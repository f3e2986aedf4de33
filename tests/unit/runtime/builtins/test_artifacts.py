"""``switchboard.artifacts``: safe names, a size cap, atomic writes, metadata, and the tools on top."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from desktop_app.runtime.builtins.artifacts import (
    INDEX_NAME,
    MAX_ARTIFACT_BYTES,
    ArtifactError,
    ArtifactStore,
    check_name,
    make_artifacts_server,
)
from desktop_app.runtime.host import Host

SERVER = "switchboard.artifacts"


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("..", "path separators|'..'"),
        ("../secrets.txt", "path separators"),
        ("a/../../b", "path separators"),
        ("notes..md", "'..'"),
        ("sub/notes.md", "path separators"),
        ("sub\\notes.md", "path separators"),
        ("/etc/passwd", "path separators"),
        ("C:\\Windows\\win.ini", "path separators"),
        ("C:notes.md", "absolute paths"),
        (".hidden", "may not start with '.'"),
        (INDEX_NAME, "may not start with '.'"),
        ("bad\x00name", "control characters"),
        ("tab\there", "control characters"),
        ("what?.txt", "control characters and <>:"),
        ("CON.txt", "reserved device name"),
        ("trailing.", "end with '.'"),
        (" lead.txt", "start or end with a space"),
        ("x" * 129, "the limit is 128"),
    ],
)
def test_unsafe_names_are_refused_with_a_reason(name: str, why: str) -> None:
    with pytest.raises(ArtifactError, match=why.replace("(", r"\(").replace(")", r"\)")):
        check_name(name)


@pytest.mark.parametrize("name", ["notes.md", "Plan 2026 (draft).txt", "data_v1.2.csv", "résumé.md", "x" * 128])
def test_plain_names_are_accepted(name: str) -> None:
    assert check_name(name) == name


def test_save_list_read_with_metadata(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path / "artifacts")
    assert store.list() == []  # no folder yet: nothing saved
    saved = store.save("plan.md", "# Plan\n- one\n", "text/markdown")
    assert (saved.name, saved.size_bytes, saved.mime_type) == ("plan.md", 13, "text/markdown")
    store.save("data.csv", "a,b\n1,2\n", "text/csv; charset=utf-8")
    (tmp_path / "artifacts" / "dropped.json").write_text("{}")  # put there by hand: mime is guessed
    listing = {info.name: info for info in store.list()}
    assert list(listing) == ["data.csv", "dropped.json", "plan.md"]
    assert listing["data.csv"].mime_type == "text/csv; charset=utf-8"
    assert listing["dropped.json"].mime_type == "application/json"
    assert listing["plan.md"].size_bytes == 13 and listing["plan.md"].modified.startswith("20")
    assert store.read("plan.md") == "# Plan\n- one\n"
    index = json.loads((tmp_path / "artifacts" / INDEX_NAME).read_text())
    assert index == {"data.csv": "text/csv; charset=utf-8", "plan.md": "text/markdown"}


def test_save_replaces_atomically_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path / "artifacts")
    store.save("a.txt", "first")
    store.save("a.txt", "second, longer")
    assert store.read("a.txt") == "second, longer"
    assert sorted(p.name for p in (tmp_path / "artifacts").iterdir()) == [INDEX_NAME, "a.txt"]


def test_failed_write_keeps_the_old_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ArtifactStore(tmp_path / "artifacts")
    store.save("a.txt", "kept")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        store.save("a.txt", "lost")
    monkeypatch.undo()
    assert store.read("a.txt") == "kept"
    assert sorted(p.name for p in (tmp_path / "artifacts").iterdir()) == [INDEX_NAME, "a.txt"]


def test_size_cap_is_named_in_the_error(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path / "artifacts")
    store.save("max.txt", "x" * MAX_ARTIFACT_BYTES)  # exactly the cap is fine
    with pytest.raises(ArtifactError, match=r"is 1,048,577 bytes; the limit is 1 MiB"):
        store.save("big.txt", "x" * (MAX_ARTIFACT_BYTES + 1))
    with pytest.raises(ArtifactError, match=r"the limit is 1 MiB"):  # the cap counts UTF-8 bytes
        store.save("big.txt", "é" * (MAX_ARTIFACT_BYTES // 2 + 1))
    assert not (tmp_path / "artifacts" / "big.txt").exists()


def test_read_refuses_unknown_names_links_and_binary(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path / "artifacts")
    store.save("a.txt", "hello")
    with pytest.raises(ArtifactError, match=r"There is no artifact named 'b.txt' \(artifacts: a.txt\)"):
        store.read("b.txt")
    (tmp_path / "artifacts" / "blob.bin").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ArtifactError, match="not UTF-8 text"):
        store.read("blob.bin")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    if hasattr(os, "symlink") and os.name != "nt":
        (tmp_path / "artifacts" / "link.txt").symlink_to(outside)
        with pytest.raises(ArtifactError, match=r"no artifact named 'link\.txt'"):
            store.read("link.txt")
        assert "link.txt" not in {info.name for info in store.list()}
        with pytest.raises(ArtifactError, match="not a plain file"):
            store.save("link.txt", "overwrite?")
        assert outside.read_text() == "secret"


def test_bad_mime_type_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ArtifactError, match="Invalid MIME type 'text'"):
        ArtifactStore(tmp_path).save("a.txt", "x", "text")


@pytest.mark.asyncio
async def test_tools_through_the_host(host: Host, tmp_path: Path) -> None:
    folder = tmp_path / "data" / "artifacts"
    host.register_builtin(SERVER, lambda: make_artifacts_server(folder))

    saved = await host.call(SERVER, "save_artifact", {"name": "n.md", "content": "# Hi", "mime_type": "text/markdown"})
    assert not saved.is_error, saved.text
    assert saved.text == f"Saved artifact 'n.md' (4 bytes, text/markdown) to {folder / 'n.md'}."
    assert (folder / "n.md").read_text() == "# Hi"

    listed = await host.call(SERVER, "list_artifacts", {})
    assert listed.structured is not None
    assert listed.structured["folder"] == str(folder)
    [entry] = listed.structured["artifacts"]
    assert (entry["name"], entry["size_bytes"], entry["mime_type"]) == ("n.md", 4, "text/markdown")

    read = await host.call(SERVER, "read_artifact", {"name": "n.md"})
    assert (read.is_error, read.text) == (False, "# Hi")

    escape = await host.call(SERVER, "save_artifact", {"name": "../escape.txt", "content": "x"})
    assert escape.is_error
    assert "Invalid artifact name '../escape.txt': path separators are not allowed" in escape.text
    assert not (tmp_path / "data" / "escape.txt").exists()
    missing = await host.call(SERVER, "read_artifact", {"name": "gone.md"})
    assert missing.is_error and "There is no artifact named 'gone.md'" in missing.text


@pytest.mark.asyncio
async def test_only_save_is_not_read_only(host: Host, tmp_path: Path) -> None:
    host.register_builtin(SERVER, lambda: make_artifacts_server(tmp_path))
    await host.ensure_connected(SERVER)
    read_only = {t.name: t.read_only for t in host.tools()}
    assert read_only == {"save_artifact": False, "list_artifacts": True, "read_artifact": True}
    assert not (tmp_path / "artifacts").exists()  # creating the server writes nothing
