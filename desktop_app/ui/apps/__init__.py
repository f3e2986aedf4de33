"""MCP App views in the window (issue 26): the frame in the tool card, the sandboxed web view, the wiring.

Nothing here imports Qt WebEngine at import time: :mod:`.engine` loads it when the first view is shown (so
start-up, idle memory and text-only results do not pay for it), and only :mod:`.web_view` imports it.
"""
