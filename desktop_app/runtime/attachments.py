"""Loading attached files for a prompt, and the vision side channel for models that cannot read images.

What a file becomes (``load_attachment`` / ``attachment_from_bytes``):

* **images** — PNG, JPEG, GIF and WebP, recognised by their magic bytes (the extension is only a hint):
  ``kind="image"`` with the bytes in base64. Larger than ``max_attachment_image_bytes``: refused.
* **text** — a ``text/*`` (or JSON, XML, YAML, script…) type by ``mimetypes``, or any file without NUL
  bytes that decodes as UTF-8: ``kind="text"``, inlined into the prompt under a ``<file name=…>`` header.
  Longer than ``max_attachment_text_bytes``: **truncated** (not refused) with a marker that says how much
  was sent and names the setting to raise.
* anything else (PDF, archives, executables, BMP/TIFF images…): refused with ``AttachmentError``.

Vision (Whale's multimodal side channel, seed 002 §3.6, adapted): when the chosen model cannot read images
(``ProviderSettings.takes_images is False``) and a ``vision_provider`` is configured, the run first asks the
vision model to describe the images (``vision_request``), then sends the main model the description as text
(an ``image_description`` attachment) instead of the images. Without a vision provider the run is refused
before any request (``VisionUnavailableError``, see ``vision_refusal``).
"""

from __future__ import annotations

import base64
import mimetypes
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_app.runtime.context import human_size
from desktop_app.runtime.errors import ConfigError, ProviderError, SwitchboardError
from desktop_app.runtime.events.parts import RetryInfo
from desktop_app.runtime.files import file_kind, open_regular
from desktop_app.runtime.messages import Attachment, SystemMessage, UserMessage
from desktop_app.runtime.providers.base import ChatRequest, Provider, final_completion

if TYPE_CHECKING:
    from desktop_app.runtime.settings import Settings

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
"""The image types both dialects accept."""

TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/x-javascript",
        "application/x-sh",
        "application/x-shellscript",
        "application/x-python",
        "application/x-python-code",
        "application/toml",
        "application/yaml",
        "application/x-yaml",
        "application/sql",
        "application/x-tex",
        "application/x-latex",
        "application/ld+json",
        "application/x-ndjson",
        "image/svg+xml",
    }
)

TEXT_SETTING = "max_attachment_text_bytes"
IMAGE_SETTING = "max_attachment_image_bytes"


class AttachmentError(SwitchboardError):
    """A file cannot be attached (missing, unreadable, too large, or a binary type no model takes)."""

    code = "attachment_error"


class VisionUnavailableError(SwitchboardError):
    """The chosen model cannot read images and no vision provider is configured."""

    code = "vision_unavailable"


@dataclass(frozen=True)
class AttachmentLimits:
    """Size caps: text beyond ``max_text_bytes`` is truncated, images beyond ``max_image_bytes`` refused."""

    max_text_bytes: int = 200 * 1024
    max_image_bytes: int = 5 * 1024 * 1024

    @classmethod
    def from_settings(cls, settings: Settings) -> AttachmentLimits:
        return cls(settings.max_attachment_text_bytes, settings.max_attachment_image_bytes)


# ---- sniffing -----------------------------------------------------------------------------------------


def sniff_image(head: bytes) -> str | None:
    """The image type the magic bytes say (PNG, JPEG, GIF, WebP), or ``None``."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def guess_type(name: str) -> str | None:
    """The MIME type the file name suggests (``mimetypes``, plus a few it misses)."""
    guessed, _ = mimetypes.guess_type(name, strict=False)
    if guessed:
        return guessed
    suffix = Path(name).suffix.lower()
    extra = {
        ".md": "text/markdown",
        ".toml": "application/toml",
        ".yaml": "application/yaml",
        ".yml": "application/yaml",
    }
    if suffix in extra:
        return extra[suffix]
    return None


def _is_text_type(mime: str | None) -> bool:
    return mime is not None and (mime.startswith("text/") or mime in TEXT_APPLICATION_TYPES or mime.endswith("+json"))


def _decode_utf8(data: bytes, *, partial: bool) -> str | None:
    """``data`` as UTF-8 (a BOM dropped), or ``None`` if it is not UTF-8 text.

    With ``partial`` (the head of a longer file) a character cut in half at the end is dropped.
    """
    if b"\x00" in data[:8192]:
        return None
    for cut in range(4 if partial else 1):
        piece = data[: len(data) - cut]
        try:
            return piece.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            if exc.start < len(piece) - 3:  # a bad byte in the middle: not UTF-8
                return None
    return None


# ---- loading ------------------------------------------------------------------------------------------


def _refuse_binary(name: str, mime: str | None) -> AttachmentError:
    what = f" ({mime})" if mime else ""
    return AttachmentError(
        f"{name} is a binary file{what} that cannot be sent to a model; attach images "
        "(PNG, JPEG, GIF, WebP) or text files only."
    )


def attachment_from_bytes(
    name: str, data: bytes, limits: AttachmentLimits = AttachmentLimits(), *, size: int | None = None
) -> Attachment:
    """Classify and encode already-read bytes (e.g. an image pasted from the clipboard).

    ``size`` is the whole file's size when ``data`` is only its head (text beyond the cap is not read).
    """
    total = len(data) if size is None else size
    image = sniff_image(data[:16])
    guessed = guess_type(name)
    if image is not None:
        if total > limits.max_image_bytes:
            raise AttachmentError(
                f"{name} is {human_size(total)}; images up to {human_size(limits.max_image_bytes)} can be attached "
                f"(setting {IMAGE_SETTING}). Make it smaller or raise the limit."
            )
        encoded = base64.b64encode(data).decode("ascii")
        return Attachment(name=name, mime_type=image, kind="image", size=total, data=encoded)
    if guessed is not None and guessed.startswith("image/") and guessed != "image/svg+xml":
        if guessed in IMAGE_TYPES:
            raise AttachmentError(f"{name} does not look like a {guessed.split('/')[1].upper()} image (bad header).")
        raise AttachmentError(f"{name} is an image type models do not take ({guessed}); convert it to PNG or JPEG.")
    head = data[: limits.max_text_bytes]
    truncated = total > limits.max_text_bytes
    text = _decode_utf8(head, partial=truncated)
    if text is None and _is_text_type(guessed) and b"\x00" not in head[:8192]:
        text = head.decode("utf-8", errors="replace")
    if text is None:
        raise _refuse_binary(name, guessed)
    note = ""
    if truncated:
        note = (
            f"[… truncated: {name} is {human_size(total)}; only the first {human_size(limits.max_text_bytes)} "
            f"are included (setting {TEXT_SETTING})]"
        )
    mime = guessed if _is_text_type(guessed) else "text/plain"
    return Attachment(
        name=name, mime_type=mime or "text/plain", kind="text", size=total, data=text, truncated=truncated, note=note
    )


def load_attachment(path: str | os.PathLike[str], limits: AttachmentLimits = AttachmentLimits()) -> Attachment:
    """Read a file and make it an ``Attachment``; ``AttachmentError`` says why a file cannot be attached."""
    file = Path(path)
    name = file.name
    try:
        size = file.stat().st_size
        if file.is_dir():
            raise AttachmentError(f"{file} is a folder; attach files one by one.")
        mode = file.stat().st_mode
        if not stat.S_ISREG(mode):  # a FIFO would block the read, a device (/dev/zero) never ends
            raise AttachmentError(f"{file} is {file_kind(mode)}, not a regular file; attach a regular file.")
        with os.fdopen(open_regular(file), "rb") as handle:
            head = handle.read(16)
            image = sniff_image(head) is not None
            limit = limits.max_image_bytes if image else limits.max_text_bytes
            # an image over the cap is refused below on its size, without reading it
            rest = b"" if image and size > limit else handle.read(max(limit - len(head), 0))
    except FileNotFoundError:
        raise AttachmentError(f"{file}: no such file.") from None
    except ConfigError as exc:  # it changed into a FIFO or a device since it was looked at
        raise AttachmentError(f"{file}: {exc.problem}.") from None
    except PermissionError:
        raise AttachmentError(f"{file}: permission denied.") from None
    except OSError as exc:
        raise AttachmentError(f"{file}: cannot be read ({exc.strerror or exc}).") from None
    return attachment_from_bytes(name, head + rest, limits, size=size)


PathOrAttachment = Attachment | str | os.PathLike[str]
"""What a run takes as an attachment: a loaded ``Attachment``, or the path of a file to load."""


def load_attachments(
    items: Sequence[PathOrAttachment], limits: AttachmentLimits = AttachmentLimits()
) -> list[Attachment]:
    """Attachments as given, with paths loaded (the first file that cannot be attached raises)."""
    return [item if isinstance(item, Attachment) else load_attachment(item, limits) for item in items]


def attachment_name(item: PathOrAttachment) -> str:
    return item.name if isinstance(item, Attachment) else Path(item).name


# ---- vision -------------------------------------------------------------------------------------------

VISION_INSTRUCTIONS = (
    "You describe images for an assistant that cannot see them. Describe each attached image in detail: "
    "what it shows, its layout, and every piece of visible text transcribed verbatim (code, errors, labels, "
    "numbers, table cells). Name each image by its file name. Do not answer the user's request yourself; "
    "describe what is needed to answer it."
)


def vision_request(model: str, images: Sequence[Attachment], prompt: str) -> ChatRequest:
    """The request that asks the vision model to describe ``images`` for the user's ``prompt``."""
    names = ", ".join(image.name for image in images)
    text = (
        f"Describe these images: {names}.\n\nThe user's request that comes with them:\n<request>\n{prompt}\n</request>"
    )
    messages = (SystemMessage(content=VISION_INSTRUCTIONS), UserMessage(content=text, attachments=tuple(images)))
    return ChatRequest(model=model, messages=messages)


async def describe_images(
    provider: Provider, model: str, images: Sequence[Attachment], prompt: str, *, on_retry: Callable[[RetryInfo], None]
) -> str:
    """Ask the vision ``provider`` to describe ``images`` (for ``prompt``); its retries go to ``on_retry``."""
    completion = await final_completion(provider.stream(vision_request(model, images, prompt)), on_retry=on_retry)
    if completion is None or not completion.content.strip():
        raise ProviderError(f"The vision model {model} returned no description of the images; try again.")
    return completion.content.strip()


def description_attachment(images: Sequence[Attachment], description: str, model: str) -> Attachment:
    """The vision model's description, as the text that replaces the images in the main request."""
    return Attachment(
        name=", ".join(image.name for image in images),
        mime_type="text/plain",
        kind="image_description",
        size=len(description.encode("utf-8")),
        data=description.strip(),
        note=model,
    )


def vision_refusal(model: str) -> VisionUnavailableError:
    """The error of a run with images for a model that cannot read them, and no vision provider."""
    return VisionUnavailableError(
        f"{model} cannot read images; configure a vision-capable provider in Settings → Provider, or remove the image."
    )
