"""Appearance: the light and dark themes and the application font size."""
