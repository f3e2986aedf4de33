"""Helpers for hook tests: runners built from ``hooks`` objects as a user writes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner


def runner_for(hooks: dict[str, Any], cwd: Path | None = None) -> HookRunner:
    """A runner with ``hooks`` from the user's own settings (trusted)."""
    runner = HookRunner(cwd=cwd)
    found = parse_hooks(hooks, HookSource("user"))
    assert not found.problems, found.problems
    runner.add_hooks(found)
    return runner
