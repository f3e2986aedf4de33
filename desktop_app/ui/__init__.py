"""The PySide6 desktop UI. Together with ``desktop_app.app`` the only code that imports Qt."""
