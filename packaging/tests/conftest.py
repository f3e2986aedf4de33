"""Fixtures for the checks on what ``make package`` built: the frozen folder, the .deb, the tarball.

They run after the build (``packaging/build.sh``), not in ``make test``: a missing artefact fails loudly.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pkgcheck import DIST, INSTALLED, linux, need, project

_lintian: subprocess.Popen[str] | None = None


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start lintian (about a minute on the .deb) as soon as it is known to be needed, so it runs while the
    frozen-app checks run; the ``lintian`` fixture collects its result."""
    global _lintian
    deb = DIST / linux.deb_name(project.version())
    if deb.exists() and any("lintian" in getattr(item, "fixturenames", ()) for item in session.items):
        _lintian = subprocess.Popen(
            ["lintian", "--fail-on", "error", "--tag-display-limit", "0", str(deb)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _lintian is not None and _lintian.poll() is None:
        _lintian.kill()
        _lintian.wait()


@pytest.fixture(scope="session")
def lintian(deb: Path) -> tuple[int, str]:
    """lintian's exit code and output on the .deb (started at collection time)."""
    assert _lintian is not None, f"lintian was not started for {deb}"
    output, _ = _lintian.communicate(timeout=600)
    return _lintian.returncode, output


@pytest.fixture(scope="session")
def version() -> str:
    return project.version()


@pytest.fixture(scope="session")
def bundle() -> Path:
    return need(DIST / project.EXE_NAME)


@pytest.fixture(scope="session")
def frozen(bundle: Path) -> Path:
    """The built app; SWITCHBOARD_FROZEN_EXE names another one (switchboard-cli.exe, the .app's program)."""
    override = os.environ.get("SWITCHBOARD_FROZEN_EXE")
    return need(Path(override).resolve() if override else bundle / project.EXE_NAME)


@pytest.fixture(scope="session")
def deb(version: str) -> Path:
    return need(DIST / linux.deb_name(version))


@pytest.fixture(scope="session")
def tarball(version: str) -> Path:
    return need(DIST / linux.tar_name(version))


@pytest.fixture(scope="session")
def unpacked(tarball: Path, tmp_path_factory: pytest.TempPathFactory, version: str) -> Path:
    """The tarball unpacked somewhere else (a path with a space): the relocatable app's executable."""
    where = tmp_path_factory.mktemp("relocated") / "some place"
    where.mkdir()
    with tarfile.open(tarball) as tar:
        tar.extractall(where, filter="tar")
    return need(where / f"switchboard-{version}" / project.EXE_NAME)


@pytest.fixture(scope="session")
def installed(deb: Path) -> Iterator[Path]:
    """``dpkg -i`` the .deb (root only), yield ``/usr/bin/switchboard``, then remove the package again."""
    if os.geteuid() != 0 or shutil.which("dpkg") is None:
        pytest.skip("installing the .deb needs root and dpkg (CI runs as root)")
    before = subprocess.run(["dpkg-query", "-W", "-f=${Status}", "switchboard"], capture_output=True, text=True)
    was_installed = "install ok installed" in before.stdout
    result = subprocess.run(["dpkg", "-i", str(deb)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"dpkg -i failed:\n{result.stdout}\n{result.stderr}"
    try:
        yield INSTALLED
    finally:
        if not was_installed:
            subprocess.run(["dpkg", "-r", "switchboard"], capture_output=True, text=True, timeout=300)
