#!/usr/bin/env bash
# A short tour of Concord on real temporary stores, driven through sync-tool.
set -euo pipefail
bin="$1"
tool="$bin/sync-tool"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
app="$tmp/app-group"

step() { printf '\n== %s\n' "$*"; }
show() { printf '$ sync-tool %s\n' "$*"; "$tool" "$@"; }

step "Typed values in a suite (each stored with its type and a version)"
show set "$app" group.example.app username Ada
show set "$app" group.example.app launchCount 3 --type int
show set "$app" group.example.app volume 0.8 --type double
show set "$app" group.example.app onboarded true --type bool
show set "$app" group.example.app lastOpened 2026-11-29T12:00:00Z --type date
show set "$app" group.example.app window '{"width":800,"height":600,"tags":["main"]}' --type json
show list "$app"
show get "$app" group.example.app window --json
echo '$ sync-tool get ... launchCount --type mismatch is a clear error:'
"$tool" set "$app" group.example.app launchCount many --type int || echo "(exit $?)"

step "A watcher in one process sees what other processes write, live"
"$tool" watch "$app" group.example.app --count 6 --timeout 20 > "$tmp/watch.out" 2>/dev/null &
watcher=$!
sleep 0.5

step "Two processes write at once; an atomic counter counts every increment"
( for i in $(seq 1 50); do "$tool" incr "$app" group.example.app launches >/dev/null; done ) &
( for i in $(seq 1 50); do "$tool" incr "$app" group.example.app launches >/dev/null; done ) &
( "$tool" set "$app" group.example.app theme dark
  "$tool" set "$app" group.example.app fontSize 14 --type int ) &
( "$tool" set "$app" group.example.widget size medium
  "$tool" delete "$app" group.example.app onboarded
  "$tool" set "$app" group.example.app accent blue ) &
wait %2 %3 %4 %5
show get "$app" group.example.app launches
echo "(two processes x 50 increments: nothing lost)"
wait "$watcher" || true
echo "what the watcher process printed (seq, suite, key, value, version, origin):"
sed 's/^/   /' "$tmp/watch.out"

step "The change journal (one entry per key: rewrites are compacted)"
show log "$app" group.example.app

step "Two replicas (a phone and a watch) diverge while apart"
watch="$tmp/watch"
show set "$watch" group.example.app units metric
show sync "$app" "$watch"
show set "$app" group.example.app theme light
show set "$watch" group.example.app theme dark
show set "$watch" group.example.app complication steps
echo '$ sync-tool sync ... --dry-run   (exit 10: changes pending, nothing written)'
"$tool" sync "$app" "$watch" --dry-run || echo "(exit $?)"

step "They sync, converge, and the concurrent write that lost is kept in the conflict log"
show sync "$app" "$watch"
show get "$app" group.example.app theme
show get "$watch" group.example.app theme
show get "$app" group.example.app complication
show conflicts "$app"
echo '$ sync-tool sync ... --dry-run   (exit 0: in sync)'
"$tool" sync "$app" "$watch" --dry-run

step "Why is the theme what it is? Name the replicas (the names sync), ask, and undo the merge"
show name "$app" "Ada's phone"
show name "$watch" "Ada's watch"
show sync "$app" "$watch"
show why "$app" group.example.app theme
show restore "$app" group.example.app theme --conflict 1
show sync "$app" "$watch"
show get "$watch" group.example.app theme
echo "(the losing write came back as a new write, and synced like any other)"

step "A counter: increments on both replicas add up (with lww, one of them would be lost)"
show policy "$app" group.example.app launchCount counter
show sync "$app" "$watch"
show incr "$app" group.example.app launchCount
show incr "$watch" group.example.app launchCount
show sync "$app" "$watch"
show get "$watch" group.example.app launchCount
echo "(3 + one increment on each replica; no conflict)"
show policy "$watch" group.example.app

step "A window frame that stays on each device, a token that expires, and: is the watch up to date?"
show scope "$app" group.example.app window. device --prefix
show set "$app" group.example.app window.frame "0 0 390 844"
show set "$watch" group.example.app window.frame "0 0 198 242"
show set "$app" group.example.app token abc123 --expires-in 2
show status "$app"
show sync "$app" "$watch"
show get "$watch" group.example.app window.frame
show get "$watch" group.example.app token
show status "$app"
echo "(each keeps its own window.frame; in two seconds the token reads as absent on both)"

step "Reset a suite (tombstones every key, so a reset would sync)"
show reset "$app" group.example.widget
show suites "$app"
show info "$app"
show check "$app"

step "Operations: a hot backup (the same replica, checked), what the replica takes, old deletes collected"
show backup "$app" "$tmp/backup" --compact --progress=json
show stat "$app" --top 3
echo '$ sync-tool stat ... --prometheus | grep -A2 peer_pending   # for node_exporter'"'"'s textfile collector'
"$tool" stat "$app" --prometheus | grep -A2 'HELP concord_peer_pending'
show gc "$app" --retention 0
