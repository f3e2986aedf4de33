#!/bin/sh
# A PreToolUse hook: reads the event (JSON on stdin) and appends it to tool-calls.log beside the plugin.
cat >> "$(dirname "$0")/../tool-calls.log"
echo >> "$(dirname "$0")/../tool-calls.log"
exit 0
