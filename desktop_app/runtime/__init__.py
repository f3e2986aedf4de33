"""The Qt-free host runtime: providers, the MCP host, the run loop and the event protocol.

Nothing under this package may import PySide6, qasync or ``desktop_app.ui`` (an
import-linter contract in ``pyproject.toml`` enforces it).
"""
