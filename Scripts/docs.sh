#!/usr/bin/env bash
# Builds the documentation of the Concord module (`import Concord`) into a static site, .build/docs-site.
# Fails when a public symbol of Concord, ConcordTesting or ConcordHub has no summary (doc-check) or when docc warns (an unresolved link, a
# topic that names nothing): warnings are errors. Installs nothing; docc ships with the toolchain.
#
#   Scripts/docs.sh BIN_PATH     (after building the three library targets and doc-check)
set -euo pipefail
bin="$1"
swift="${SWIFT:-swift}"
# docc and swift-symbolgraph-extract ship with the toolchain, beside swift (or on the PATH).
toolchain="$(dirname "$(readlink -f "$(command -v "$swift")")")"
tool() { if [ -x "$toolchain/$1" ]; then echo "$toolchain/$1"; else command -v "$1" || { echo "docs: $1 not found beside $swift or on the PATH (it ships with the Swift toolchain)" >&2; exit 4; }; fi; }
docc="${DOCC:-$(tool docc)}"
extractor="$(tool swift-symbolgraph-extract)"
graphs=.build/symbol-graphs/Concord
site=.build/docs-site
triple=$("$swift" -print-target-info | sed -n 's/^ *"triple": "\(.*\)",$/\1/p' | head -1)

# The check must be able to fail: a graph with an undocumented property and an important method
# without its sections is refused, naming both (and only those).
self_check=$(mktemp)
trap 'rm -f "$self_check"' EXIT
if "$bin/doc-check" fixtures/doc-check > "$self_check" 2>&1 \
   || ! grep -q 'Documented.name (swift.property) has no doc comment' "$self_check" \
   || ! grep -q 'Store.check() is an important symbol without - Returns, - Throws' "$self_check" \
   || [ "$(grep -c '^/fixture/' "$self_check")" -ne 2 ]; then
  cat "$self_check"
  echo "docs: doc-check did not refuse exactly the fixture's two undocumented symbols"
  exit 1
fi

# The symbol graph of each library product's module.
extract() {  # MODULE [EXTRA ARGUMENTS]
  local module="$1"; shift
  rm -rf ".build/symbol-graphs/$module" && mkdir -p ".build/symbol-graphs/$module"
  "$extractor" -module-name "$module" -target "$triple" \
    -I "$bin/Modules" -I Sources/CLMDB -I Sources/CSodium -I Sources/CPostgres $(pkg-config --cflags-only-I libpq | sed 's/-I/-Xcc -I/g') \
    -minimum-access-level public -emit-extension-block-symbols "$@" \
    -output-dir ".build/symbol-graphs/$module"
}
extract Concord
# The other library products have no catalog of their own, but their public symbols need summaries too.
extract ConcordTesting
extract ConcordHub
"$bin/doc-check" "$graphs" .build/symbol-graphs/ConcordTesting .build/symbol-graphs/ConcordHub

# The public surface: each module's public types, listed in the architecture document, and a bound on
# their count that only goes down (api-surface fails above it, and below it until it is lowered).
# SURFACE_WRITE=1 (`make surface`) rewrites the list first.
surface_bounds=("$graphs=49,1" ".build/symbol-graphs/ConcordHub=8,0" ".build/symbol-graphs/ConcordTesting=3,0")
# The check must be able to fail: one bound lower, or one type missing from the list, is refused.
surface_doc=$(mktemp)
cp docs/ARCHITECTURE.md "$surface_doc"
lowered=("${surface_bounds[@]}")
lowered[0]="$graphs=$(( $(echo "${surface_bounds[0]#*=}" | cut -d, -f1) - 1 )),$(echo "${surface_bounds[0]#*=}" | cut -d, -f2)"
"$bin/api-surface" --write --document "$surface_doc" "${surface_bounds[@]}" > /dev/null || true
if "$bin/api-surface" --document "$surface_doc" "${lowered[@]}" > "$self_check" 2>&1 || ! grep -q '^Concord has .* public types, more than its bound' "$self_check"; then
  cat "$self_check"; rm -f "$surface_doc"
  echo "docs: api-surface did not refuse a surface one type over its bound"
  exit 1
fi
sed -i 's/`Store`, \{0,1\}//' "$surface_doc"
if "$bin/api-surface" --document "$surface_doc" "${surface_bounds[@]}" > "$self_check" 2>&1 || ! grep -q 'is not the symbol graphs' "$self_check"; then
  cat "$self_check"; rm -f "$surface_doc"
  echo "docs: api-surface did not refuse a list that lacks a type"
  exit 1
fi
rm -f "$surface_doc"
"$bin/api-surface" ${SURFACE_WRITE:+--write} --document docs/ARCHITECTURE.md "${surface_bounds[@]}"

rm -rf "$site"
"$docc" convert Sources/Concord/Concord.docc \
  --additional-symbol-graph-dir "$graphs" \
  --fallback-display-name Concord --fallback-bundle-identifier org.concord.Concord \
  --transform-for-static-hosting --warnings-as-errors \
  --output-path "$site"
echo "docs: $site/documentation/concord/index.html (serve the folder with any static file server)"
