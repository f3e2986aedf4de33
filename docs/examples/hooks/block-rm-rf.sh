#!/bin/sh
# A PreToolUse hook that blocks tool calls whose arguments look like a recursive forced delete.
#
# Wire it in settings.json ("hooks" is your own, so it is trusted):
#
#   "hooks": {"PreToolUse": [{"type": "command", "command": "sh /path/to/block-rm-rf.sh",
#                             "match": "mcp__.*", "timeout": 10, "description": "block rm -rf"}]}
#
# Switchboard writes the hook payload (one JSON line: event, cwd, session_id, tool_name, tool_args,
# tool_call…) to stdin. Exit code 2 blocks the call on PreToolUse, and stderr is the reason the user and
# the model read. Exit 0 lets it run.
payload=$(cat)
# rm with -r and -f in any order or spelling (-rf, -fr, -Rf, -r -f, --recursive --force), or find -delete on /
if printf '%s' "$payload" | grep -Eq 'rm[[:space:]]+((-[[:alnum:]]*[rR][[:alnum:]]*[fF]|-[[:alnum:]]*[fF][[:alnum:]]*[rR])|(-[rR][[:space:]]+-f|-f[[:space:]]+-[rR])|(--recursive[[:space:]]+--force|--force[[:space:]]+--recursive))'; then
    echo "refusing a recursive forced delete (rm -rf); run it yourself if you really mean it" >&2
    exit 2
fi
exit 0
