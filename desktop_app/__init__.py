"""Switchboard: a small, fast desktop AI assistant that is also a complete MCP host.

``__version__`` is the one version set in ``pyproject.toml``: read from the installed distribution's
metadata (an editable install, a wheel, or the frozen app, which bundles that metadata), else from the
``pyproject.toml`` of a checkout that was never installed. It is read on first use, not when the package is
imported: ``importlib.metadata`` costs ~35 ms, which the first paint and a forwarded second launch (both
import this package first) must not pay.
"""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("switchboard")
    except PackageNotFoundError:
        import tomllib
        from pathlib import Path

        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        try:
            with pyproject.open("rb") as fh:
                return str(tomllib.load(fh)["project"]["version"])
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "0+unknown"


def __getattr__(name: str) -> str:
    if name == "__version__":
        value = _version()
        globals()["__version__"] = value  # later lookups find it without coming here
        return value
    raise AttributeError(f"module 'desktop_app' has no attribute {name!r}")
