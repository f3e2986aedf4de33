"""The one normalized event protocol (:mod:`.protocol`): every event a run emits, discriminated by ``kind``.

Everything spells an event ``ev.TextDelta`` (``from desktop_app.runtime import events as ev``) or imports it from
here, as before. The ~40 event classes are made when the first of them is asked for (this module's
``__getattr__`` imports :mod:`.protocol` then, under the import system's lock, so two threads asking at once get
the same classes): the app does not make them on the way to ``runtime: ready`` (~7 ms, issue 27), and the first
keystroke loads them with the rest of what a run needs (``Runs.prepare``). Type checkers see every name through the
star import below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop_app.runtime.events.protocol import *  # noqa: F403

_SUBMODULES = ("protocol", "parts")


def __getattr__(name: str) -> Any:
    """The protocol's ``name``, the protocol loaded (and its names copied here) on the first ask."""
    if name.startswith("__") or name in _SUBMODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")  # the import system imports these
    from desktop_app.runtime.events import protocol  # an import statement: `-X importtime` sees it

    names = {key: value for key, value in vars(protocol).items() if not key.startswith("_")}
    globals().update(names)  # from now on a plain module attribute: no call per lookup
    try:
        return names[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
