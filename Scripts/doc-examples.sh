#!/usr/bin/env bash
# Compiles every ```swift block of the `///` doc comments in Sources, of the DocC articles and of the README against
# the built modules, in one compile (doc-examples), and fails naming the file:line of each block that
# does not compile. What a block uses without declaring comes from Tools/doc-examples/Context or from
# the `<!-- assume: … -->` comment on the lines before its fence (DocC does not render it).
#
#   Scripts/doc-examples.sh BIN_PATH     (after `swift build --build-tests`: the modules are built for testing)
set -euo pipefail
bin="$1"
swift="${SWIFT:-swift}"
swiftc="$(dirname "$(readlink -f "$(command -v "$swift")")")/swiftc"
[ -x "$swiftc" ] || swiftc="$(command -v swiftc)" || { echo "doc-examples: swiftc not found beside $swift or on the PATH" >&2; exit 4; }
check() {  # WORK PATH...
  local work="$1"; shift
  "$bin/doc-examples" --swiftc "$swiftc" --modules "$bin/Modules" --context Tools/doc-examples/Context --work "$work" \
    -I Sources/CLMDB -I Sources/CSodium -I Sources/CPostgres $(pkg-config --cflags-only-I libpq | sed 's/-I/-Xcc -I/g') "$@"
}

# The check must be able to fail: the fixture's four refused blocks (and only those) are named, each
# at its fence, and a stray assumption is refused before anything compiles.
out=$(mktemp)
stray=$(mktemp -d)
trap 'rm -rf "$out" "$stray"' EXIT
expected="fixtures/doc-examples/Sources/Concord/Fixture.docc/Article.md:18
fixtures/doc-examples/Sources/Concord/Fixture.swift:13
fixtures/doc-examples/Sources/Concord/Fixture.swift:20
fixtures/doc-examples/Sources/Concord/Fixture.swift:52"
status=0
check .build/doc-examples-fixture fixtures/doc-examples > "$out" 2>&1 || status=$?
if [ "$status" -ne 1 ] || [ "$(grep ': this example does not compile' "$out" | cut -d: -f1,2 | sort)" != "$expected" ] \
   || ! grep -q '^doc-examples: 4 of 9 blocks do not compile$' "$out"; then
  cat "$out"
  echo "doc-examples: the fixture's refused blocks were not exactly the four expected (exit $status)"
  exit 1
fi
mkdir -p "$stray/Sources/Concord"
printf '/// <!-- assume: let x = 1 -->\n///\n/// No block follows.\npublic func stray() {}\n' > "$stray/Sources/Concord/Stray.swift"
status=0
check "$stray/work" "$stray/Sources" > "$out" 2>&1 || status=$?
if [ "$status" -ne 1 ] || ! grep -q "Stray.swift:1: this <!-- assume: … --> comment is not right before a \`\`\`swift block" "$out"; then
  cat "$out"
  echo "doc-examples: an assumption with no block after it was not refused (exit $status)"
  exit 1
fi

check .build/doc-examples Sources README.md
