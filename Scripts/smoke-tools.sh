#!/usr/bin/env bash
# Proves the shipped tools run end to end: sync-tool, a short stress-test run with kills
# (its invariants must hold), and the benchmark's quick mode (no timing is asserted).
set -euo pipefail
bin="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/sync-tool" set "$tmp/r" app greeting hello >/dev/null
[ "$("$bin/sync-tool" get "$tmp/r" app greeting)" = "hello" ]
"$bin/sync-tool" check "$tmp/r" >/dev/null
echo "smoke: sync-tool ok"

echo "stress-test: 20 s, 3 replicas x 3 processes, 2 SIGKILLs per second, a replica restored from its backup every few seconds"
if ! "$bin/stress-test" --seconds 20 --kill-rate 2 --restore-rate 0.3 --seed "${STRESS_SEED:-1}" --json > "$tmp/stress.json" 2> "$tmp/stress.err"; then
  cat "$tmp/stress.err" "$tmp/stress.json"
  echo "stress-test: FAILED"
  exit 1
fi
cat "$tmp/stress.json"
echo "stress-test: ok"

echo "stress-test --hub: 15 s, 3 replicas syncing through a PostgreSQL hub, 2 SIGKILLs per second (mid-push and mid-pull), replicas restored from backups"
if ! "$bin/stress-test" --hub --seconds 15 --kill-rate 2 --restore-rate 0.3 --seed "${STRESS_SEED:-1}" --json > "$tmp/stress-hub.json" 2> "$tmp/stress-hub.err"; then
  cat "$tmp/stress-hub.err" "$tmp/stress-hub.json"
  echo "stress-test --hub: FAILED"
  exit 1
fi
cat "$tmp/stress-hub.json"
echo "stress-test --hub: ok"

echo "stress-test --transport ssh: 15 s, every sync's second replica over a local sshd, 2 SIGKILLs per second (far serves too), replicas restored from backups"
if ! "$bin/stress-test" --transport ssh --seconds 15 --kill-rate 2 --restore-rate 0.3 --seed "${STRESS_SEED:-1}" --json > "$tmp/stress-ssh.json" 2> "$tmp/stress-ssh.err"; then
  cat "$tmp/stress-ssh.err" "$tmp/stress-ssh.json"
  echo "stress-test --transport ssh: FAILED"
  exit 1
fi
cat "$tmp/stress-ssh.json"
echo "stress-test --transport ssh: ok"

echo "bench --quick (proves the benchmark runs; its timings are not checked)"
if ! "$bin/bench" --quick > "$tmp/bench.md" 2> "$tmp/bench.err"; then
  cat "$tmp/bench.err"
  echo "bench: FAILED"
  exit 1
fi
echo "bench: ok ($(grep -c '^|' "$tmp/bench.md") table rows)"
