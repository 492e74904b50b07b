// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Concord",
    products: [
        .library(name: "Concord", targets: ["Concord"]),
        .executable(name: "sync-tool", targets: ["sync-tool"]),
    ],
    targets: [
        // LMDB layer: the C library and a thin, safe Swift API over it. Nothing Concord-specific.
        .systemLibrary(
            name: "CLMDB",
            path: "Sources/CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .target(name: "LMDB", dependencies: ["CLMDB"]),

        // Concord's layers; dependencies point one way: LMDB <- store <- sync <- wrappers <- tools.
        .target(name: "ConcordStore", dependencies: ["LMDB"]),
        .target(name: "Concord", dependencies: ["ConcordStore"]),

        // The CLI: a thin main over a library that tests call directly.
        .target(name: "SyncToolCore", dependencies: ["Concord"]),
        .executableTarget(name: "sync-tool", dependencies: ["SyncToolCore"], path: "Tools/sync-tool"),

        // A small executable the tests spawn to act as "another process" (writers, crashers, watchers).
        .executableTarget(name: "concord-test-helper", dependencies: ["Concord"], path: "Tools/test-helper"),

        .target(name: "TestSupport", dependencies: ["Concord"], path: "Tests/TestSupport"),
        .testTarget(name: "LMDBTests", dependencies: ["LMDB", "TestSupport"]),
        .testTarget(name: "ConcordStoreTests", dependencies: ["ConcordStore", "TestSupport"]),
        .testTarget(name: "SyncToolTests", dependencies: ["SyncToolCore", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
