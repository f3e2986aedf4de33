"""Per-run context: what the model should know about "now" and "here", sent with the user's message.

A run's context is a list of ``ContextItem(kind, label, text)``: the date, time and time zone, the
operating system, optional text the user chose to include (a selection, the clipboard) and the attached
files (name and size; their contents travel as attachments). The UI shows each item as a removable chip
above the composer; ``label`` is the chip's text and ``text`` what the model gets.

Decision: the items are rendered into one compact ``<context>…</context>`` block **at the end of the user
message** (``UserMessage.context``, after the attached files and the prompt), not into the system prompt
(#16). The system prompt then stays byte-identical across turns (prompt caches keep hitting), everything a
request adds goes at its end, and each turn carries the time at which it was asked. Rendering is
deterministic: the same items give the same bytes.

``Runtime.run(..., context=None)`` sends no block; callers that want the defaults (the composer's chips,
``Runtime.default_context()``) pass them explicitly.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Literal

from desktop_app.runtime.messages import Attachment

ContextKind = Literal["datetime", "os", "selection", "clipboard", "file", "note"]

MAX_INCLUDED_TEXT = 20_000
"""Selected or clipboard text longer than this (characters) is cut, with a marker."""


@dataclass(frozen=True)
class ContextItem:
    """One piece of context: ``kind``, the chip ``label`` and the ``text`` the model gets."""

    kind: ContextKind
    label: str
    text: str


# ---- date, time and time zone -------------------------------------------------------------------------


def timezone_name(tz: tzinfo | None, *, local: bool = False) -> str:
    """The IANA name of ``tz`` when known, else its abbreviation.

    A ``ZoneInfo`` has its ``key``; for the ``local`` zone (whose tzinfo has no name) ``$TZ`` and the
    ``/etc/localtime`` link are asked.
    """
    key = getattr(tz, "key", None)
    if isinstance(key, str) and key:
        return key
    if not local:
        return (tz.tzname(None) if tz is not None else None) or "UTC"
    env = os.environ.get("TZ", "").lstrip(":")
    if env and "/" in env and not env.startswith("/"):
        return env
    try:
        target = str(Path("/etc/localtime").resolve())
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        return target.split("zoneinfo/", 1)[1]
    abbreviation = tz.tzname(None) if tz is not None else None
    return abbreviation or "UTC"


def _utc_offset(moment: datetime) -> str:
    offset = moment.utcoffset()
    if offset is None:
        return "UTC"
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours:02d}:{rest:02d}"


def datetime_item(now: datetime | None = None) -> ContextItem:
    """The date, the time and the time zone of ``now`` (default: the local clock, with its zone)."""
    local = now is None or now.tzinfo is None
    moment = datetime.now().astimezone() if now is None else now if now.tzinfo is not None else now.astimezone()
    zone = timezone_name(moment.tzinfo, local=local)
    text = f"date: {moment:%A}, {moment:%Y-%m-%d}\ntime: {moment:%H:%M} {zone} ({_utc_offset(moment)})"
    label = f"{moment:%a %d %b %H:%M} {zone}"
    return ContextItem("datetime", label, text)


# ---- operating system ---------------------------------------------------------------------------------


def _os_pretty_name() -> str:
    system = platform.system()
    if system == "Darwin":
        version = platform.mac_ver()[0]
        return f"macOS {version}".strip()
    if system == "Windows":
        return f"Windows {platform.release()} ({platform.version()})"
    if system == "Linux":
        try:
            name = platform.freedesktop_os_release().get("PRETTY_NAME", "")
        except OSError:
            name = ""
        return name or "Linux"
    return system or "unknown OS"


def os_item(pretty_name: str | None = None, *, kernel: str | None = None, machine: str | None = None) -> ContextItem:
    """The operating system (name, kernel release, architecture); arguments override what is detected."""
    name = pretty_name if pretty_name is not None else _os_pretty_name()
    kernel = kernel if kernel is not None else f"{platform.system()} {platform.release()}".strip()
    machine = machine if machine is not None else platform.machine()
    details = ", ".join(part for part in (kernel, machine) if part and part not in name)
    text = f"os: {name}" + (f" ({details})" if details else "")
    return ContextItem("os", name, text)


# ---- chosen text and files ----------------------------------------------------------------------------


def text_item(text: str, *, kind: Literal["selection", "clipboard", "note"] = "selection") -> ContextItem:
    """Text the user chose to include (a selection, the clipboard), cut at ``MAX_INCLUDED_TEXT`` characters."""
    heading = {"selection": "selected text", "clipboard": "clipboard", "note": "note"}[kind]
    body = text
    if len(body) > MAX_INCLUDED_TEXT:
        body = body[:MAX_INCLUDED_TEXT] + f"\n[… cut: {len(text):,} characters, the first {MAX_INCLUDED_TEXT:,} shown]"
    first_line = text.strip().splitlines()[0] if text.strip() else ""
    preview = first_line[:28] + ("…" if len(first_line) > 28 or "\n" in text.strip() else "")
    return ContextItem(
        kind, f"{heading.capitalize()}: {preview}" if preview else heading.capitalize(), f"{heading}:\n{body}"
    )


def human_size(size: int) -> str:
    """``532 B``, ``1.2 KB``, ``3.4 MB`` (1024-based, as file managers show sizes)."""
    value = float(size)
    for unit in ("B", "KB", "MB"):
        if value < 1024 or unit == "MB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"  # pragma: no cover - unreachable


def file_item(name: str, size: int) -> ContextItem:
    """An attached file: its name and size (the contents travel as the attachment itself)."""
    return ContextItem("file", f"{name} ({human_size(size)})", f"{name} ({human_size(size)})")


def file_items(attachments: Iterable[Attachment]) -> list[ContextItem]:
    return [file_item(a.name, a.size) for a in attachments if a.kind != "image_description"]


# ---- defaults and rendering ---------------------------------------------------------------------------


def default_context(
    *, now: datetime | None = None, include_datetime: bool = True, include_os: bool = True
) -> list[ContextItem]:
    """The items every run gets unless the user removes them: date/time/zone and the OS."""
    items = []
    if include_datetime:
        items.append(datetime_item(now))
    if include_os:
        items.append(os_item())
    return items


def render_context(items: Sequence[ContextItem]) -> str:
    """The compact ``<context>`` block for ``items`` (files on one ``attached files:`` line); ``""`` if none."""
    if not items:
        return ""
    lines: list[str] = []
    files = [item.text for item in items if item.kind == "file"]
    for item in items:
        if item.kind != "file":
            lines.append(item.text)
    if files:
        lines.append("attached files: " + ", ".join(files))
    return "<context>\n" + "\n".join(lines) + "\n</context>"
