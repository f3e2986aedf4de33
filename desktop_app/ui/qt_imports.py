"""Make PySide6's ``__feature__`` import hook cheap and safe; call ``lighten_feature_hook()`` right after Qt is
first imported (``desktop_app.app`` does, before anything else loads).

Once PySide6 is loaded, shiboken's ``feature_imported`` hook runs for every module imported afterwards, to
learn whether it uses ``from __feature__ import …``: it calls ``inspect.getsource(module)`` and looks for
the word "PySide6". That has two costs here:

* every module's whole source lands in ``linecache`` for good — about 18 MB of Python heap for the ~1,000
  modules the runtime brings in (mcp, pydantic, httpx …), measured with ``benchmarks/footprint.py``;
* ``inspect`` touches attributes of a module that is still being imported; pydantic answers unknown names
  with a lazy ``__getattr__`` that imports more of pydantic, which fails as a circular import when the
  first pydantic import happens in the worker thread that loads the runtime (seen as a start-up failure:
  ``cannot import name 'import_string' from partially initialized module``).

The replacement reads the module's file as bytes for the same test, keeps nothing, and only reads
``__file__`` (set before a module runs). Switchboard uses no ``__feature__`` options, so the decision it
feeds (which feature set a module gets) is the same as before for every module.
"""

from __future__ import annotations

import logging
import types

log = logging.getLogger(__name__)


def _mentions_pyside(module: types.ModuleType) -> bool:
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py"):
        return False
    try:
        with open(path, "rb") as source:
            return b"PySide6" in source.read()
    except OSError:
        return False


def lighten_feature_hook() -> bool:
    """Swap shiboken's source-reading test for ``_mentions_pyside``. Returns False when this PySide6 has no
    such hook (then nothing changes)."""
    import PySide6.QtCore  # noqa: F401  # loads shibokensupport

    try:
        import shibokensupport.feature as feature  # type: ignore[import-not-found]
    except ImportError:
        return False
    if not callable(getattr(feature, "_mod_uses_pyside", None)):
        log.debug("shibokensupport.feature has no _mod_uses_pyside; the import hook is left as it is")
        return False
    feature._mod_uses_pyside = _mentions_pyside
    return True
