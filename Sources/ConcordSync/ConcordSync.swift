// The sync layer: merge, peer cursors, bundles, conflict log (issue 5).
@_exported import ConcordStore
