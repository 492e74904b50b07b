// The sync layer (see the architecture document, "Sync"): the pure merge rule, delta reads over
// change journals, batch application in one write transaction, the bidirectional `Synchronizer`,
// bundles for syncing through files, and the sync layer's tables in a replica (peer cursors, the
// conflict log) with tombstone collection.
