"""The Tools dock: the tool catalog, search and per-tool preferences."""
