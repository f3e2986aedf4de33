"""Whether a bundle fits this machine: its platforms, its runtime versions, and ``uv`` for ``uv`` bundles.

Each refusal is a sentence saying what the bundle needs, what this machine has, and what to do.
Version ranges use the npm semver syntax the manifests use (``>=3.10``, ``^18.0.0``, ``>=16 <23``,
``~1.2``, ``a || b``), and the comma-separated form of MANIFEST.md's Python example (``>=3.8,<4.0``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Callable

from desktop_app.runtime.extensions.manifest import Manifest

Version = tuple[int, int, int]
_COMPARATOR = re.compile(r"^(>=|<=|>|<|=|\^|~)?v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:[-+].*)?$")
RuntimeProbe = Callable[[str], "Version | None"]


def current_platform() -> str:
    """``darwin``, ``win32`` or ``linux``, as manifests name them."""
    platform = str(sys.platform)
    return "linux" if platform.startswith("linux") else platform


def parse_version(text: str) -> Version | None:
    match = re.search(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?", text)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2) or 0), int(match.group(3) or 0)


def _part(value: str | None) -> int | None:
    return None if value is None or value in "xX*" else int(value)


def _satisfies_one(version: Version, comparator: str) -> bool:
    match = _COMPARATOR.match(comparator)
    if match is None:
        raise ValueError(f"cannot read the version range {comparator!r}")
    op = match.group(1) or "="
    major, minor, patch = _part(match.group(2)), _part(match.group(3)), _part(match.group(4))
    if major is None:
        return True
    low: Version = (major, minor or 0, patch or 0)
    if op == "^":
        high: Version = (major + 1, 0, 0) if major > 0 else ((0, (minor or 0) + 1, 0) if minor else (1, 0, 0))
        return low <= version < high
    if op == "~":
        high = (major, (minor or 0) + 1, 0) if minor is not None else (major + 1, 0, 0)
        return low <= version < high
    if op == "=":
        if minor is None:
            return version[0] == major
        if patch is None:
            return version[:2] == (major, minor)
        return version == low
    return {">=": version >= low, "<=": version <= low, ">": version > low, "<": version < low}[op]


def satisfies(version: Version, spec: str) -> bool:
    """Whether ``version`` is in the npm-style range ``spec``."""
    for alternative in spec.split("||"):
        text = re.sub(r"(>=|<=|>|<|=|\^|~)\s+", r"\1", alternative.strip().replace(",", " "))
        if not text:
            return True
        hyphen = re.match(r"^(\S+)\s+-\s+(\S+)$", text)
        parts = [f">={hyphen.group(1)}", f"<={hyphen.group(2)}"] if hyphen else text.split()
        if all(_satisfies_one(version, part) for part in parts):
            return True
    return False


def probe_runtime(runtime: str) -> Version | None:
    """The installed version of ``python`` (python3, else python) or ``node``, or ``None`` when missing."""
    candidates = ["python3", "python"] if runtime == "python" else ["node"]
    for command in candidates:
        found = shutil.which(command)
        if found is None:
            continue
        try:
            done = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=15, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        version = parse_version(done.stdout + done.stderr)
        if version is not None:
            return version
    return None


def refusals(
    manifest: Manifest,
    *,
    platform: str | None = None,
    probe: RuntimeProbe = probe_runtime,
    which: Callable[[str], str | None] = shutil.which,
) -> list[str]:
    """Why this bundle cannot run here (empty when it can)."""
    platform = platform or current_platform()
    problems: list[str] = []
    compat = manifest.compatibility
    if compat is not None and compat.platforms and platform not in compat.platforms:
        problems.append(
            f"{manifest.title} supports {', '.join(compat.platforms)} only, and this computer runs {platform}; "
            "ask its author for a build for your system"
        )
    if manifest.server.type == "uv" and which("uv") is None:
        problems.append(
            f"{manifest.title} runs through uv (server type 'uv'), and uv is not installed; install uv "
            "(https://docs.astral.sh/uv/) and install the bundle again"
        )
    needed: dict[str, str] = {}
    if compat is not None and compat.runtimes is not None:
        needed = {k: v for k, v in (("python", compat.runtimes.python), ("node", compat.runtimes.node)) if v}
    if manifest.server.type == "node":
        needed.setdefault("node", "")
    if manifest.server.type == "uv":  # uv finds or downloads a Python that fits ("no user Python installation")
        needed.pop("python", None)
    for runtime, spec in sorted(needed.items()):
        found = probe(runtime)
        label = "Python" if runtime == "python" else "Node.js"
        if found is None:
            problems.append(
                f"{manifest.title} needs {label}{' ' + spec if spec else ''}, and it is not installed; "
                "install it and try again"
            )
            continue
        try:
            fits = not spec or satisfies(found, spec)
        except ValueError as exc:
            problems.append(f"{manifest.title}: compatibility.runtimes.{runtime}: {exc}")
            continue
        if not fits:
            have = ".".join(str(p) for p in found)
            problems.append(
                f"{manifest.title} needs {label} {spec}, and this computer has {have}; install a version that fits"
            )
    return problems


__all__ = ["current_platform", "parse_version", "probe_runtime", "refusals", "satisfies"]
