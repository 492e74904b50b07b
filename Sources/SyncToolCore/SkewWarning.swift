import Concord

/// A local write must beat the record it replaces; when that record came from a clock running ahead,
/// the write's version is ahead of this machine's clock too. The CLI says so (on standard error),
/// as sync does for versions it merges.
enum SkewWarning {
    static func check(_ version: Version, store: Store, io: CommandIO) {
        let now = store.options.clock.read()
        let ahead = version.milliseconds > now ? version.milliseconds - now : 0
        guard ahead > store.options.maxClockDriftMilliseconds else { return }
        io.err(
            "clock skew warning: the record this write replaces was \(ahead / 1000) s ahead of this machine's clock (written by a replica whose clock runs ahead); the write carries a version just after it, but this replica's clock stays bounded"
        )
    }
}
