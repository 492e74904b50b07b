#!/usr/bin/env bash
# The multi-process example (Examples/): an app edits settings, a widget (another process on the
# app's replica) shows them live, and a watch (a replica in a directory of its own) is kept in sync.
# Starts the three, runs the app's short scenario, and prints what each process saw. Stops by itself
# within a few seconds (each process gives up after its own timeout).
#
#   Scripts/example.sh BIN_PATH [--check]   --check: also verify the outcome (exit 1 if it is wrong)
set -euo pipefail
bin="$1"
check="${2:-}"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
phone="$tmp/phone"   # the app's replica: the app and the widget open it
watch="$tmp/watch"   # the watch's replica

"$bin/example-widget" "$phone" --timeout 20 > "$tmp/widget.out" 2>&1 & widget=$!; pids+=("$widget")
"$bin/example-watch" "$phone" "$watch" --timeout 20 > "$tmp/watch.out" 2>&1 & watcher=$!; pids+=("$watcher")

ready() { grep -q '^[a-z]*: ready$' "$1" 2>/dev/null; }
for _ in $(seq 1 200); do
  ready "$tmp/widget.out" && ready "$tmp/watch.out" && break
  sleep 0.05
done

status=0
"$bin/example-app" "$phone" --timeout 15 > "$tmp/app.out" 2>&1 || status=1
wait "$widget" || status=1
wait "$watcher" || status=1
pids=()

for role in app widget watch; do
  printf '\n== what the %s saw\n' "$role"
  sed 's/^[a-z]*: /   /' "$tmp/$role.out"
done

[ "$check" = "--check" ] || exit $status

expected="final Ada · dark · 16 pt · 2 launches"
fail() { echo "example: FAILED: $*"; exit 1; }
[ $status -eq 0 ] || fail "a process exited with an error"
for role in app widget watch; do
  [ "$(grep "^$role: final " "$tmp/$role.out")" = "$role: $expected" ] || fail "the $role did not end with \"$expected\""
done
grep -q '^widget: theme changed to dark by another process$' "$tmp/widget.out" || fail "the widget did not see the app's theme"
grep -q '^widget: fontSize changed to 16 by a sync$' "$tmp/widget.out" || fail "the widget did not see the watch's font size arrive by sync"
grep -q '^watch: set fontSize to 16$' "$tmp/watch.out" || fail "the watch never made its edit"
grep -q '^app: fontSize is now 16 (from a sync)$' "$tmp/app.out" || fail "the app did not see the watch's edit"
echo "example: ok (three processes, two replicas, each expected value seen where it should be)"
