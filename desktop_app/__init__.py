"""Switchboard: a small, fast desktop AI assistant that is also a complete MCP host.

``__version__`` is the one version set in ``pyproject.toml``: read from the installed distribution's
metadata (an editable install, a wheel, or the frozen app, which bundles that metadata), else from the
``pyproject.toml`` of a checkout that was never installed.
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


__version__ = _version()
