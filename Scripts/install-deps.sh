#!/usr/bin/env bash
# Installs the C libraries Concord builds against (LMDB, libsodium, libpq, SQLite), the PostgreSQL server,
# PgBouncer and openssl the hub's tests run and the OpenSSH server and rsync the remote-sync tests run, when they are missing (Debian/Ubuntu).
set -euo pipefail
missing=()
pkg-config --exists lmdb 2>/dev/null || missing+=(liblmdb-dev)
pkg-config --exists sqlite3 2>/dev/null || missing+=(libsqlite3-dev)
pkg-config --exists libpq 2>/dev/null || missing+=(libpq-dev)
pkg-config --exists libsodium 2>/dev/null || missing+=(libsodium-dev)   # encrypted suites seal with libsodium
# The hub's tests, stress test and benchmark start a throwaway PostgreSQL server (initdb + postgres).
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
# The hub's pooling tests and benchmark put Debian's PgBouncer in front of it; the TLS tests make a
# throwaway certificate authority with openssl.
[ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
command -v openssl >/dev/null || missing+=(openssl)
command -v pkg-config >/dev/null || missing+=(pkg-config)
command -v faketime >/dev/null || missing+=(faketime)   # the clock-skew tests run sync-tool a year ahead
command -v mdb_stat >/dev/null || missing+=(lmdb-utils)  # the stat tests compare sync-tool stat with LMDB's own mdb_stat
command -v promtool >/dev/null || missing+=(prometheus)      # the metrics tests check sync-tool stat --prometheus with promtool
command -v script >/dev/null || missing+=(bsdutils)         # the progress tests watch the terminal line through util-linux script
python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3 python3-venv)   # make bench installs pycrdt into a venv
command -v zsh >/dev/null || missing+=(zsh)               # the completion tests load the zsh script
# The remote-sync tests, stress test and benchmark start a throwaway sshd on loopback and compare with rsync.
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || missing+=(openssh-client)
command -v rsync >/dev/null || missing+=(rsync)
# The chart tests render bench --svg and stress-test --timeline with librsvg and headless Chromium,
# and check the SVG is well-formed with xmllint.
command -v rsvg-convert >/dev/null || missing+=(librsvg2-bin)
command -v chromium >/dev/null || missing+=(chromium)
command -v xmllint >/dev/null || missing+=(libxml2-utils)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
