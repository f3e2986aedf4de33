"""The error every bundle step raises (read, verify, install, launch): :class:`BundleError`, a
:class:`~desktop_app.runtime.errors.SwitchboardError` whose message says why and what to do. Re-exported by
:mod:`.archive`."""

from __future__ import annotations

from desktop_app.runtime.errors import SwitchboardError


class BundleError(SwitchboardError):
    """A bundle cannot be installed: the message says why and what to do."""

    code = "bundle_error"
