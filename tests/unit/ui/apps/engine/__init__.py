"""Tests that show MCP App views (Qt WebEngine): run in one subprocess by ../test_webengine_views.py."""
