"""Reading a ``.mcpb`` file: its manifest, its signature block, and a safe extraction.

A bundle is a zip archive with ``manifest.json`` at its root; ``mcpb sign`` appends a signature block
(``MCPB_SIG_V1`` … ``MCPB_SIG_END``) after the archive, which is set aside before the zip is read.
Extraction checks every member first: an absolute path, a drive letter, a ``..`` step, a symbolic link or
an oversized archive refuses the whole bundle, and nothing is written. Members are then written into a
fresh temporary folder beside the target, which is renamed into place only once complete.
"""

from __future__ import annotations

import io
import shutil
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from desktop_app.runtime.extensions.errors import BundleError

if TYPE_CHECKING:
    from desktop_app.runtime.extensions.manifest import Manifest

SIGNATURE_HEADER = b"MCPB_SIG_V1"
SIGNATURE_FOOTER = b"MCPB_SIG_END"
MAX_UNPACKED_BYTES = 1024 * 1024 * 1024
MAX_MEMBERS = 100_000
MAX_BUNDLE_BYTES = 512 * 1024 * 1024
"""A ``.mcpb`` larger than this is refused before it is read into memory."""
MAX_MANIFEST_BYTES = 1024 * 1024
"""``manifest.json`` is a few KiB; a bigger one is refused (it is read into memory at every start)."""
MAX_RATIO = 100
"""Unpacked bytes per packed byte above which an archive (over :data:`RATIO_FLOOR`) is a zip bomb."""
RATIO_FLOOR = 16 * 1024 * 1024


def split_signature(content: bytes) -> tuple[bytes, bytes | None]:
    """``(archive bytes, PKCS#7 signature or None)``, as ``mcpb``'s ``extractSignatureBlock`` reads them."""
    footer = content.rfind(SIGNATURE_FOOTER)
    if footer == -1:
        return content, None
    header = content.rfind(SIGNATURE_HEADER, 0, footer)
    if header == -1:
        return content, None
    start = header + len(SIGNATURE_HEADER)
    if start + 4 > len(content):
        return content, None
    length = int.from_bytes(content[start : start + 4], "little")
    return content[:header], content[start + 4 : start + 4 + length]


@dataclass(frozen=True)
class Bundle:
    """A bundle read into memory: its path, manifest, archive bytes and signature block (if any)."""

    path: Path
    manifest: Manifest
    archive: bytes
    signature: bytes | None
    raw: bytes

    def member(self, name: str) -> bytes | None:
        """A file inside the bundle (``icon.png``), or ``None``."""
        clean = name.removeprefix("./")
        with zipfile.ZipFile(io.BytesIO(self.archive)) as archive:
            try:
                return archive.read(clean)
            except KeyError:
                return None


def _unsafe(name: str) -> str | None:
    if "\\" in name:
        name = name.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "an absolute path"
    if ".." in PurePosixPath(name).parts:
        return "a '..' step out of the bundle"
    return None


def read_bundle(path: Path) -> Bundle:
    """Read and check ``path``: a zip with a valid ``manifest.json`` and only safe member paths."""
    from desktop_app.runtime.errors import ConfigError
    from desktop_app.runtime.extensions.manifest import parse_manifest
    from desktop_app.runtime.files import read_regular_file

    try:  # a regular file only (a FIFO or /dev/zero is refused before anything is read), size-capped
        raw = read_regular_file(path, limit=MAX_BUNDLE_BYTES)
    except FileNotFoundError:
        raise BundleError(f"{path}: no such file; check the path") from None
    except ConfigError as exc:
        raise BundleError(f"{path}: not a bundle file: {exc.problem}") from None
    except OSError as exc:
        raise BundleError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    archive, signature = split_signature(raw)
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as zf:
            infos = zf.infolist()
            check_members(path, infos)
            try:
                info = zf.getinfo("manifest.json")
            except KeyError:
                raise BundleError(f"{path}: not an MCP Bundle: there is no manifest.json at its root") from None
            if info.file_size > MAX_MANIFEST_BYTES:
                raise BundleError(f"{path}: manifest.json is larger than {MAX_MANIFEST_BYTES // 1024} KiB; refused")
            with zf.open(info) as handle:
                manifest_bytes = handle.read(MAX_MANIFEST_BYTES + 1)
    except zipfile.BadZipFile:
        raise BundleError(f"{path}: not an MCP Bundle: the file is not a zip archive") from None
    return Bundle(path, parse_manifest(manifest_bytes, path), archive, signature, raw)


def read_manifest_file(path: Path) -> bytes:
    """An installed bundle's ``manifest.json``: a regular file of at most :data:`MAX_MANIFEST_BYTES`."""
    from desktop_app.runtime.errors import ConfigError
    from desktop_app.runtime.files import read_regular_file

    try:
        return read_regular_file(path, limit=MAX_MANIFEST_BYTES)
    except ConfigError as exc:
        raise BundleError(f"{path}: {exc.problem}") from None
    except OSError as exc:
        raise BundleError(f"{path}: cannot read it ({exc.strerror or exc})") from None


def check_members(path: Path, infos: list[zipfile.ZipInfo]) -> None:
    if len(infos) > MAX_MEMBERS:
        raise BundleError(f"{path}: the archive holds more than {MAX_MEMBERS} files; refused")
    total = packed = 0
    for info in infos:
        reason = _unsafe(info.filename)
        if reason is not None:
            raise BundleError(
                f"{path}: refused: the archive member {info.filename!r} is {reason} (zip-slip); nothing was extracted"
            )
        if stat.S_ISLNK(info.external_attr >> 16):
            raise BundleError(
                f"{path}: refused: the archive member {info.filename!r} is a symbolic link; nothing was extracted"
            )
        total += info.file_size
        packed += info.compress_size
    if total > MAX_UNPACKED_BYTES:
        raise BundleError(f"{path}: the archive unpacks to more than {MAX_UNPACKED_BYTES // 2**20} MiB; refused")
    if total > RATIO_FLOOR and total > MAX_RATIO * max(packed, 1):
        raise BundleError(
            f"{path}: refused: the archive unpacks to {total // 2**20} MiB from {max(packed, 1) // 1024} KiB "
            f"(more than {MAX_RATIO} times its size: a zip bomb); nothing was extracted"
        )


def extract(bundle: Bundle, target: Path) -> None:
    """Unpack ``bundle`` into ``target`` (replaced atomically if it exists); executable bits are kept."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        with zipfile.ZipFile(io.BytesIO(bundle.archive)) as zf:
            check_members(bundle.path, zf.infolist())
            for info in zf.infolist():
                destination = staging.joinpath(*PurePosixPath(info.filename.replace("\\", "/")).parts)
                if not destination.resolve().is_relative_to(staging.resolve()):  # belt and braces
                    raise BundleError(f"{bundle.path}: refused: {info.filename!r} leaves the bundle folder")
                if info.is_dir():
                    destination.mkdir(parents=True, exist_ok=True)
                    continue
                destination.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as source, destination.open("wb") as sink:
                    shutil.copyfileobj(source, sink)
                mode = (info.external_attr >> 16) & 0o777
                if mode & 0o111:
                    destination.chmod(0o755)
        old: Path | None = None
        if target.exists():
            old = target.with_name(f".{target.name}-old")
            shutil.rmtree(old, ignore_errors=True)
            target.rename(old)
        staging.rename(target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


__all__ = ["Bundle", "BundleError", "extract", "read_bundle", "read_manifest_file", "split_signature"]
