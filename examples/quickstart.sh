#!/bin/sh
# The main job end to end, on a throwaway memory: init, a few turns, what it became.
set -eu
MEMORY=$(mktemp -d "${TMPDIR:-/tmp}/souveraine-demo.XXXXXX")/memory
export SOUVERAINE_MEMORY="$MEMORY"
export SOUVERAINE_NO_SERVER=1   # a throwaway memory: no warm recall server left behind (docs/RECALL.md)
run() { printf '\n$ souveraine %s\n' "$*"; souveraine "$@"; }

run init "$MEMORY" --identity ada
run persist --session demo --user "My sister Lena lands in Lisbon on Friday." \
    --assistant "Noted: Lena arrives in Lisbon on Friday. I'll remember that you take your tea green."
run persist --session demo --user "Can you book the train to Porto for Saturday?" \
    --assistant "I'll follow up on the Porto train tomorrow, once the timetable is out."
run surface
run ledger commitments
run reflect --force
run recall "when does Lena arrive"
run recall "family visit" --semantic --limit 1     # no word in common: found by meaning
run wake --budget 2000
run status --bandwidth medium
printf '\nThe memory is a git repository of Markdown files:\n'
git -C "$MEMORY" log --oneline
printf '\n(throwaway memory at %s)\n' "$MEMORY"
