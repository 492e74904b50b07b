// The sync layer (DESIGN.md: Merge, Delta sync, Conflicts, Tombstone collection): the pure merge
// function, delta reads over change journals, batch application in one write transaction, the
// bidirectional `Synchronizer`, and bundles for syncing through files. Store-side primitives
// (peer cursors, the conflict log, tombstone collection) live in ConcordStore.
@_exported import ConcordStore
