#!/usr/bin/env bash
# Checks that the Concord module's folders are layers with dependencies one way (see the architecture
# document, "Layers"): the storage folder compiles on its own (over the LMDB module), the storage and
# sync folders compile without the wrappers' folder, and only the storage folder imports LMDB and Sodium.
#
#   Scripts/layers.sh BIN_PATH     (after `swift build`, which built the LMDB module)
set -euo pipefail
bin="$1"
swift="${SWIFT:-swift}"
swiftc="$(dirname "$(readlink -f "$(command -v "$swift")")")/swiftc"
[ -x "$swiftc" ] || swiftc="$(command -v swiftc)"
# Package access needs the package's name, which SwiftPM derives from the checkout's directory.
package=$( (grep -ho '"-package-name","[^"]*"' .build/debug.yaml .build/release.yaml 2>/dev/null || true) | head -1 | cut -d'"' -f4)
[ -n "$package" ] || { echo "layers: cannot find the package name in the build description (run swift build first)" >&2; exit 4; }

layer() {  # NAME FOLDER...
  local name="$1"; shift
  local files=()
  while IFS= read -r file; do files+=("$file"); done < <(find "$@" -name '*.swift' | sort)
  if ! output=$("$swiftc" -typecheck -parse-as-library -module-name Concord -package-name "$package" -swift-version 6 \
      -I "$bin/Modules" -Xcc -fmodule-map-file=Sources/CLMDB/module.modulemap -Xcc -fmodule-map-file=Sources/CSodium/module.modulemap "${files[@]}" 2>&1); then
    echo "$output" | grep 'error:' | sort -u | head -20
    echo "layers: $name does not compile on its own: it uses a layer above it (or LMDB, which only the storage layer imports)"
    exit 1
  fi
}

layer "the storage layer (Sources/ConcordStore)" Sources/ConcordStore
layer "the storage and sync layers (Sources/ConcordStore, Sources/ConcordSync)" Sources/ConcordStore Sources/ConcordSync

outside=$(grep -rl '^import LMDB' Sources --include='*.swift' | grep -v '^Sources/ConcordStore/\|^Sources/LMDB/' || true)
if [ -n "$outside" ]; then
  echo "$outside"
  echo "layers: only the storage layer (Sources/ConcordStore) reaches LMDB; the files above import it"
  exit 1
fi
# The sealing primitives: only the storage layer seals and opens records (the rows above it are sealed already).
outside=$(grep -rl '^import Sodium\|^import CSodium' Sources Tools --include='*.swift' | grep -v '^Sources/ConcordStore/\|^Sources/Sodium/' || true)
if [ -n "$outside" ]; then
  echo "$outside"
  echo "layers: only the storage layer (Sources/ConcordStore) reaches libsodium, through Sources/Sodium; the files above import it"
  exit 1
fi
# Through a storage type the layers above could still reach LMDB's transaction without importing it.
reaching=$(grep -rnE '\btxn\b|\blayout\.' Sources/ConcordSync Sources/Concord --include='*.swift' || true)
if [ -n "$reaching" ]; then
  echo "$reaching"
  echo "layers: the sync and wrapper layers use the store's row interface (ReplicaRows, ReplicaTransaction), never its LMDB transaction"
  exit 1
fi
echo "layers: storage <- sync <- wrappers; only the storage layer reaches LMDB and libsodium"
