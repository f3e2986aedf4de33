#!/bin/bash
# Screenshot of the quick prompt with an answer, from the real app under Xvfb (no window manager, no tray):
#   scripts/screenshot-quick-prompt.sh light|dark OUT.png
# The loopback LLM server plays tests/support/scripts/quick_prompt_demo.json; xdotool types the prompt.
THEME=${1:-light}; OUT=$(realpath -m "${2:-docs/screenshots/quick-prompt-$THEME.png}")
cd "$(dirname "$0")/.."
WORK=$(mktemp -d); H=$WORK/home
Xvfb -displayfd 1 -screen 0 1400x900x24 -nolisten tcp > "$WORK/display" 2>/dev/null & XPID=$!
for _ in $(seq 50); do [ -s "$WORK/display" ] && break; sleep 0.1; done
.venv/bin/python -m tests.support.llm_server tests/support/scripts/quick_prompt_demo.json > "$WORK/llm" 2>&1 & LPID=$!
for _ in $(seq 50); do grep -q serving "$WORK/llm" && break; sleep 0.1; done
URL=$(sed -n 's/.* at \(http[^ ]*\).*/\1/p' "$WORK/llm")
mkdir -p "$H/config" "$H/data" && touch "$H/data/no-tray-noticed"
cat > "$H/config/settings.json" <<JSON
{"provider": {"base_url": "$URL", "model": "deepseek-chat", "dialect": "openai", "api_key_env": "SB_DEMO_KEY"},
 "appearance": {"theme": "$THEME"}, "context_os": false}
JSON
export DISPLAY=:$(cat "$WORK/display") SB_DEMO_KEY=demo QT_QPA_PLATFORM=xcb
.venv/bin/switchboard --home "$H" --quick > "$WORK/app" 2>&1 & APID=$!
sleep 9  # start-up and runtime import (no readiness signal to wait on from outside)
xdotool type --delay 20 "How do I undo my last git commit but keep the changes?"
xdotool key Return
sleep 6
import -window root -crop 1070x820+0+0 "$OUT"
kill $APID; sleep 1; kill $LPID $XPID 2>/dev/null
rm -rf "$WORK"
echo "wrote $OUT"
