"""PyInstaller entry point of the frozen app: the same ``main`` as the ``switchboard`` console script."""

from desktop_app.__main__ import main

if __name__ == "__main__":
    raise SystemExit(main())
