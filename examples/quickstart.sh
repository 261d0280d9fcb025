#!/bin/sh
# The main job end to end, on a throwaway memory: init, a few turns, what it became.
set -eu
MEMORY=$(mktemp -d "${TMPDIR:-/tmp}/souveraine-demo.XXXXXX")/memory
export SOUVERAINE_MEMORY="$MEMORY"
run() { printf '\n$ souveraine %s\n' "$*"; souveraine "$@"; }

run init "$MEMORY" --identity ada
run status --bandwidth low
printf '\nThe memory is a git repository of Markdown files:\n'
git -C "$MEMORY" log --oneline
printf '\n(throwaway memory at %s)\n' "$MEMORY"
