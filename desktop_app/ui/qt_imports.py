"""Take PySide6's ``__feature__`` import hook off every later import; call ``lighten_feature_hook()`` right after
Qt is first imported (``desktop_app.app`` does, before anything else loads).

Once PySide6 is loaded, ``builtins.__import__`` is shiboken's ``__feature_import__``: every import statement
run afterwards (not only each new module) calls two Python functions, ``feature_import`` (for
``from __feature__ import snake_case, true_property``) and ``feature_imported``, which learns once per module
whether it uses those options by calling ``inspect.getsource(module)`` and looking for the word "PySide6".
That costs:

* time: the two calls per import statement, and the source read per module, ~9 ms over the ~290 modules
  between the first paint and ``runtime: ready`` (issue 27), and an import statement can no longer take
  the interpreter's fast path;
* memory: every module's whole source lands in ``linecache`` for good — about 18 MB of Python heap for the
  ~1,000 modules the runtime brings in (mcp, pydantic, httpx …), measured with ``benchmarks/footprint.py``;
* a start-up failure: ``inspect`` touches attributes of a module that is still being imported; pydantic
  answers unknown names with a lazy ``__getattr__`` that imports more of pydantic, which fails as a circular
  import when the first pydantic import happens in the worker thread that loads the runtime (``cannot import
  name 'import_string' from partially initialized module``).

Switchboard uses no ``__feature__`` options (neither does any package it loads), so the hook decides nothing
here: a module it never saw gets the feature set in force, which is always the default one. The hook is
therefore taken off: ``builtins.__import__`` goes back to the import shiboken wraps (``__orig_import__``, its
lazy loader of Qt's types, which stays). ``from __feature__ import …`` would no longer switch anything on.
Where a PySide6 has no such wrapped import, the source test is swapped for ``_mentions_pyside``, which reads
the module's file as bytes, keeps nothing, and only reads ``__file__`` (set before a module runs).
"""

from __future__ import annotations

import builtins
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
    """Take shiboken's ``__feature__`` hook off ``builtins.__import__`` (and swap its source-reading test for
    ``_mentions_pyside`` in case it runs anyway). Returns False when this PySide6 has no such hook (then
    nothing changes)."""
    import PySide6.QtCore  # noqa: F401  # loads shibokensupport

    try:
        import shibokensupport.feature as feature  # type: ignore[import-not-found]
    except ImportError:
        return False
    if not callable(getattr(feature, "_mod_uses_pyside", None)):
        log.debug("shibokensupport.feature has no _mod_uses_pyside; the import hook is left as it is")
        return False
    feature._mod_uses_pyside = _mentions_pyside
    wrapped = getattr(builtins, "__orig_import__", None)
    if callable(wrapped) and getattr(builtins.__import__, "__name__", "") == "__feature_import__":
        builtins.__import__ = wrapped
    return True
