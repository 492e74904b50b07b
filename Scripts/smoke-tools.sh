#!/usr/bin/env bash
# Proves the shipped tools run end to end (no timing is asserted here).
set -euo pipefail
bin="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/sync-tool" set "$tmp/r" app greeting hello >/dev/null
[ "$("$bin/sync-tool" get "$tmp/r" app greeting)" = "hello" ]
"$bin/sync-tool" check "$tmp/r" >/dev/null
echo "smoke: sync-tool ok"
