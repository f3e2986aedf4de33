"""The exit codes every ``switchboard`` command shares, and the ones ``ask`` gives an incomplete run."""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_TOOL_ROUND_LIMIT, EXIT_MAX_TOKENS, EXIT_CONTENT_FILTER = 3, 4, 5
EXIT_NOT_SAVED = 6
"""The run ended, but the store could not write it (disk full, read-only, I/O error): stdout is the only copy."""
INCOMPLETE_EXIT = {
    "tool_round_limit": EXIT_TOOL_ROUND_LIMIT,
    "max_tokens": EXIT_MAX_TOKENS,
    "content_filter": EXIT_CONTENT_FILTER,
}
