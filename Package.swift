// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Concord",
    products: [
        .library(name: "Concord", targets: ["Concord"]),
        .library(name: "ConcordHub", targets: ["ConcordHub"]),
        .library(name: "ConcordTesting", targets: ["ConcordTesting"]),
        .executable(name: "sync-tool", targets: ["sync-tool"]),
        .executable(name: "stress-test", targets: ["stress-test"]),
        .executable(name: "bench", targets: ["bench"])
    ],
    targets: [
        // LMDB layer: the C library and a thin, safe Swift API over it. Nothing Concord-specific.
        .systemLibrary(name: "CLMDB", path: "Sources/CLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),
        .target(name: "LMDB", dependencies: ["CLMDB"]),

        // Sealing layer: libsodium and a thin, safe Swift API over the primitives encrypted suites use.
        .systemLibrary(name: "CSodium", path: "Sources/CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .target(name: "Sodium", dependencies: ["CSodium"]),

        // Concord: one module whose folders are its layers, dependencies one way: storage (ConcordStore)
        // <- sync (ConcordSync) <- wrappers (Concord). Scripts/layers.sh checks each layer compiles
        // without the ones above it (see the architecture document, "Layers").
        .target(
            name: "Concord", dependencies: ["LMDB", "Sodium"], path: "Sources",
            exclude: ["Concord/Concord.docc"], sources: ["ConcordStore", "ConcordSync", "Concord"]),

        // Helpers for users testing their own code: temporary stores, a manual clock, waiting for a change.
        .target(name: "ConcordTesting", dependencies: ["Concord"]),

        // The PostgreSQL hub client (many devices, many accounts): libpq and a small layer over it.
        .systemLibrary(name: "CPostgres", path: "Sources/CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "ConcordHub", dependencies: ["Concord", "CPostgres"]),

        // The CLI: a thin main over a library that tests call directly.
        .target(name: "SyncToolCore", dependencies: ["Concord", "ConcordHub"]),
        .executableTarget(name: "sync-tool", dependencies: ["SyncToolCore"], path: "Tools/sync-tool"),

        // The multi-process stress and crash harness.
        .executableTarget(
            name: "stress-test", dependencies: ["Concord", "SyncToolCore", "ConcordHub", "ScratchPostgres", "ScratchSSH", "ChartSVG", "SplitMix"],
            path: "Tools/stress-test"),

        // The side-by-side benchmark (SQLite only here, as a baseline).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "bench",
            dependencies: ["Concord", "ConcordHub", "ScratchPostgres", "ScratchSSH", "CLMDB", "CSQLite", "ChartSVG", "ChildProcesses", "SplitMix"],
            path: "Tools/bench",
            exclude: ["README.md"]),

        // A small SVG writer (escaped text, scales with round ticks) for `bench --svg` and `stress-test --timeline`.
        .target(name: "ChartSVG", path: "Tools/chart-svg"),
        // Child processes of the tests and tools: started, read, killed and always reaped.
        .target(name: "ChildProcesses", path: "Tools/child-process"),
        // The seeded random generator (SplitMix64) of the stress test, the benchmark, the fuzz targets and the tests.
        .target(name: "SplitMix", path: "Tools/split-mix"),

        // A small executable the tests spawn to act as "another process" (writers, crashers, watchers).
        .executableTarget(name: "concord-test-helper", dependencies: ["Concord", "ConcordHub", "SplitMix"], path: "Tools/test-helper"),

        // Fails when a public symbol in a symbol graph has no documentation summary (`make docs`, `make test`).
        .executableTarget(name: "doc-check", path: "Tools/doc-check"),
        // Lists the public types of the library modules from their symbol graphs, checks the list in the
        // architecture document and fails when a module's count passes its bound (`make test`, `make surface`).
        .executableTarget(name: "api-surface", path: "Tools/api-surface"),
        // Compiles every ```swift block of the doc comments and DocC articles against the built modules (`make test`).
        .executableTarget(name: "doc-examples", dependencies: ["ChildProcesses"], path: "Tools/doc-examples", exclude: ["Context"]),

        // The multi-process example `make example` runs: an app edits settings, a widget shows them live,
        // a watch replica (a directory of its own) is kept in sync with the app's.
        .target(name: "ExampleSettings", dependencies: ["Concord"], path: "Examples/Shared"),
        .executableTarget(name: "example-app", dependencies: ["ExampleSettings"], path: "Examples/App"),
        .executableTarget(name: "example-widget", dependencies: ["ExampleSettings"], path: "Examples/Widget"),
        .executableTarget(name: "example-watch", dependencies: ["ExampleSettings"], path: "Examples/Watch"),

        // A throwaway PostgreSQL server (initdb in a temporary directory) for the hub's tests, stress test and benchmark.
        .target(name: "ScratchPostgres", path: "Tools/scratch-postgres"),
        // A throwaway OpenSSH server (sshd on loopback, keys in a temporary directory) for remote sync.
        .target(name: "ScratchSSH", path: "Tools/scratch-ssh"),

        .target(name: "TestSupport", dependencies: ["ChildProcesses", "Concord", "ConcordTesting", "SplitMix"], path: "Tests/TestSupport"),
        .testTarget(name: "LMDBTests", dependencies: ["LMDB", "TestSupport"]),
        .testTarget(name: "ConcordStoreTests", dependencies: ["Concord", "LMDB", "TestSupport"]),
        .testTarget(name: "ConcordSyncTests", dependencies: ["Concord", "TestSupport"]),
        .testTarget(name: "ConcordTests", dependencies: ["Concord", "TestSupport"]),
        .testTarget(name: "SyncToolTests", dependencies: ["SyncToolCore", "ScratchSSH", "TestSupport"]),
        .testTarget(name: "ConcordHubTests", dependencies: ["ConcordHub", "ScratchPostgres", "ScratchSSH", "SyncToolCore", "TestSupport"]),
        .testTarget(name: "ConcordTestingTests", dependencies: ["ConcordTesting", "TestSupport"]),
        .testTarget(name: "ReliabilityTests", dependencies: ["Concord", "LMDB", "SyncToolCore", "TestSupport"])
    ],
    swiftLanguageModes: [.v6]
)
