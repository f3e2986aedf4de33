"""Loading attachments: type sniffing (magic bytes over extensions), caps, text inlining, refusals; vision facts."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path

import pytest

from desktop_app.runtime.attachments import (
    AttachmentError,
    AttachmentLimits,
    attachment_from_bytes,
    load_attachment,
    load_attachments,
    sniff_image,
)
from desktop_app.runtime.messages import Attachment, UserMessage
from desktop_app.runtime.settings import ProviderSettings, infer_supports_images


def tiny_png(width: int = 2, height: int = 2) -> bytes:
    """A valid RGB PNG of ``width`` x ``height`` red pixels."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@pytest.mark.parametrize(
    ("head", "mime"),
    [
        (b"\x89PNG\r\n\x1a\n....", "image/png"),
        (b"\xff\xd8\xff\xe0..JFIF", "image/jpeg"),
        (b"GIF89a......", "image/gif"),
        (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
        (b"%PDF-1.7", None),
    ],
)
def test_sniff_image_by_magic_bytes(head: bytes, mime: str | None) -> None:
    assert sniff_image(head) == mime


def test_png_is_base64_with_its_sniffed_type_even_under_a_wrong_name(tmp_path: Path) -> None:
    data = tiny_png()
    path = tmp_path / "shot.jpg"  # the extension lies; the magic bytes win
    path.write_bytes(data)
    item = load_attachment(path)
    assert item.kind == "image"
    assert item.mime_type == "image/png"
    assert item.size == len(data)
    assert base64.b64decode(item.data) == data


def test_image_over_the_cap_is_refused_naming_the_setting(tmp_path: Path) -> None:
    path = tmp_path / "big.png"
    path.write_bytes(tiny_png() + b"\x00" * 4000)
    with pytest.raises(AttachmentError, match="max_attachment_image_bytes"):
        load_attachment(path, AttachmentLimits(max_image_bytes=2048))


def test_text_file_is_inlined_with_a_header_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Plan\nShip it — soon.\n", encoding="utf-8")
    item = load_attachment(path)
    assert (item.kind, item.mime_type, item.truncated) == ("text", "text/markdown", False)
    text = UserMessage(content="Summarise", attachments=(item,)).text_with_attachments()
    assert text.startswith('<file name="notes.md" type="text/markdown" size="')
    assert "# Plan\nShip it — soon.\n" in text
    assert text.endswith("</file>\n\nSummarise")


def test_unknown_extension_that_decodes_as_utf8_is_text(tmp_path: Path) -> None:
    path = tmp_path / "Makefile.weird"
    path.write_text("all:\n\techo hi\n", encoding="utf-8")
    item = load_attachment(path)
    assert item.kind == "text"
    assert item.mime_type == "text/plain"


def test_long_text_is_truncated_with_a_marker_naming_the_setting(tmp_path: Path) -> None:
    path = tmp_path / "log.txt"
    path.write_text("é" * 3000, encoding="utf-8")  # 6000 bytes; the cap cuts a character in half
    item = load_attachment(path, AttachmentLimits(max_text_bytes=1025))
    assert item.truncated
    assert item.size == 6000
    assert item.data == "é" * 512
    assert "truncated" in item.note and "max_attachment_text_bytes" in item.note
    assert item.note in UserMessage(content="q", attachments=(item,)).text_with_attachments()


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("report.pdf", b"%PDF-1.7\n\x00\x01\x02binary", "binary file"),
        ("blob.bin", bytes(range(256)) * 4, "binary file"),
        ("scan.bmp", b"BM" + b"\x00" * 64, "convert it to PNG or JPEG"),
        ("fake.png", b"not really a png", "does not look like a PNG image"),
    ],
)
def test_binaries_are_refused_with_a_clear_message(name: str, data: bytes, message: str) -> None:
    with pytest.raises(AttachmentError, match=message):
        attachment_from_bytes(name, data)


def test_missing_file_and_folder_are_refused(tmp_path: Path) -> None:
    with pytest.raises(AttachmentError, match="no such file"):
        load_attachment(tmp_path / "nope.txt")
    with pytest.raises(AttachmentError, match="is a folder"):
        load_attachment(tmp_path)


def test_load_attachments_keeps_loaded_ones_and_loads_paths(tmp_path: Path) -> None:
    ready = Attachment(name="a.txt", mime_type="text/plain", kind="text", data="a")
    path = tmp_path / "b.txt"
    path.write_text("b", encoding="utf-8")
    loaded = load_attachments([ready, path, str(path)])
    assert loaded[0] is ready
    assert [item.data for item in loaded] == ["a", "b", "b"]


@pytest.mark.parametrize(
    ("model", "dialect", "expected"),
    [
        ("deepseek-chat", "deepseek", False),
        ("deepseek-reasoner", "deepseek", False),
        ("claude-sonnet-4-5", "anthropic", True),
        ("gpt-4o-mini", "openai", True),
        ("gpt-3.5-turbo", "openai", False),
        ("o3-mini", "openai", False),
        ("o4-mini", "openai", True),
        ("qwen2.5-coder:7b", "openai", False),
        ("llama3.2-vision:11b", "openai", True),
        ("openrouter/google/gemini-2.5-flash", "openai", True),
        ("my-local-model", "openai", None),
    ],
)
def test_supports_images_is_inferred_from_the_model_name(model: str, dialect: str, expected: bool | None) -> None:
    assert infer_supports_images(model, dialect) is expected  # type: ignore[arg-type]


def test_explicit_supports_images_wins_over_the_inference() -> None:
    settings = ProviderSettings(base_url="http://x", model="deepseek-chat", dialect="deepseek")
    assert settings.takes_images is False
    assert settings.model_copy(update={"supports_images": True}).takes_images is True
