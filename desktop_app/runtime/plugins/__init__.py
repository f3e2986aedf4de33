"""Plugins: a folder that contributes MCP servers, skills, hooks and prompts, in the formats already in use.

* :mod:`.model` — reading a plugin folder: Claude Code's layout (``.claude-plugin/plugin.json``, ``skills/``,
  ``hooks/hooks.json``, ``.mcp.json``, ``${CLAUDE_PLUGIN_ROOT}``) or Whale's ``whale-plugin.toml``;
* :mod:`.manage` — install (disabled), enable, disable and remove, leaving nothing behind.
"""

from desktop_app.runtime.plugins.model import Plugin, PluginError, read_plugin

__all__ = ["Plugin", "PluginError", "read_plugin"]
