import Concord
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Directories and files that others could tamper with, and suite names that try to leave the store,
/// are refused with a clear error before anything is read or written.
@Suite(.offThePool) struct PermissionTests {
    static func makeStore(_ dir: String) throws {
        try #require(run("sync-tool", ["set", dir, "app", "theme", "dark"], timeout: 60).exited(0))
    }

    @Test(arguments: [0o777, 0o757, 0o770, 0o1777, 0o720])
    func directoryOthersCanWriteIsRefused(_ mode: Int) throws {
        let tmp = try TemporaryDirectory("concord-perm-dir")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        try Self.makeStore(dir)
        chmod(dir, mode_t(mode))
        for args in [["get", dir, "app", "theme"], ["set", dir, "app", "theme", "light"], ["check", dir]] {
            let outcome = try run("sync-tool", args, timeout: 60)
            #expect(outcome.exited(4), "\(args[0]) in a directory of mode \(String(mode, radix: 8)): \(outcome)")
            #expect(
                outcome.stderr.contains("writable by group or others") && outcome.stderr.contains("chmod 700"),
                "the message says why and what to do: \(outcome.stderr)")
        }
        expectError(.insecure) { _ = try Store(path: dir) }
        chmod(dir, 0o700)
        #expect(try StoreContents.list(dir, suite: "app") == ["theme": "dark"], "nothing was changed")
        if mode == 0o777 {
            chmod(dir, 0o777)
            figure(
                "directory others can write",
                "modes 777, 757, 770, 1777 and 720 refused with exit 4: \(try run("sync-tool", ["check", dir], timeout: 60).stderr.trimmed)")
            chmod(dir, 0o700)
        }
    }

    @Test func symlinkToADirectoryOthersCanWriteIsRefused() throws {
        let tmp = try TemporaryDirectory("concord-perm-link-dir")
        defer { tmp.remove() }
        let real = tmp.path("real")
        try Self.makeStore(real)
        chmod(real, 0o777)
        let link = tmp.path("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let outcome = try run("sync-tool", ["get", link, "app", "theme"], timeout: 60)
        #expect(outcome.exited(4) && outcome.stderr.contains("writable by group or others"), "\(outcome)")
    }

    enum Planted: String, CaseIterable, Sendable {
        case dataSymlink, lockSymlink, notifySymlink, danglingDataSymlink, dataDirectory, dataFIFO
    }

    @Test(arguments: Planted.allCases)
    func storeFileThatIsNotItsOwnIsRefused(_ planted: Planted) throws {
        let tmp = try TemporaryDirectory("concord-perm-file")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        try Self.makeStore(dir)
        let elsewhere = tmp.path("elsewhere.mdb")
        let file: String
        switch planted {
        case .dataSymlink, .danglingDataSymlink, .dataDirectory, .dataFIFO: file = dir + "/data.mdb"
        case .lockSymlink: file = dir + "/lock.mdb"
        case .notifySymlink: file = dir + "/notify"
        }
        if planted != .danglingDataSymlink {
            try FileManager.default.moveItem(atPath: file, toPath: elsewhere)
        } else {
            try FileManager.default.removeItem(atPath: file)
        }
        let before = try? Data(contentsOf: URL(fileURLWithPath: elsewhere))
        switch planted {
        case .dataSymlink, .lockSymlink, .notifySymlink: try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: elsewhere)
        case .danglingDataSymlink: try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: tmp.path("missing"))
        case .dataDirectory: try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: false)
        case .dataFIFO: #expect(mkfifo(file, 0o600) == 0)
        }
        for args in [["get", dir, "app", "theme"], ["set", dir, "app", "theme", "light"], ["check", dir]] {
            let outcome = try run("sync-tool", args, timeout: 30)
            #expect(outcome.exited(4), "\(args[0]) with \(planted): \(outcome)")
            #expect(outcome.stderr.contains("not a regular file"), "\(args[0]) with \(planted): \(outcome.stderr)")
        }
        expectError(.insecure) { _ = try Store(path: dir) }
        if let before { #expect(try Data(contentsOf: URL(fileURLWithPath: elsewhere)) == before, "the file the link points at is untouched") }
        if planted == .dataSymlink {
            figure(
                "symlinked store files",
                "data.mdb, lock.mdb and notify as symlinks (also dangling), a directory or a FIFO named data.mdb: exit 4, \(try run("sync-tool", ["check", dir], timeout: 60).stderr.trimmed)"
            )
        }
    }

    @Test(arguments: ["../x", "..", ".", "a/b", "/etc", "x/../../y", "", "x\u{0}y", "..\u{2215}x", String(repeating: "a", count: 129)])
    func suiteNameThatTriesToEscapeIsRefused(_ name: String) throws {
        let tmp = try TemporaryDirectory("concord-perm-suite")
        defer { tmp.remove() }
        let dir = tmp.path("replica")
        try Self.makeStore(dir)
        let before = try FileManager.default.subpathsOfDirectory(atPath: tmp.root).sorted()
        let store = try Store(path: dir)
        #expect {
            _ = try store.suite(name)
        } throws: { code($0) == .invalidSuiteName }
        if !name.contains("\u{0}") {
            for args in [["set", dir, name, "k", "v"], ["get", dir, name, "k"], ["reset", dir, name]] {
                let outcome = try run("sync-tool", args, timeout: 60)
                #expect(outcome.exited(3) && outcome.stderr.contains("invalid suite name"), "\(args[0]) with suite \(name.debugDescription): \(outcome)")
            }
        }
        #expect(try FileManager.default.subpathsOfDirectory(atPath: tmp.root).sorted() == before, "no file appeared anywhere")
        #expect(try store.suiteNames() == ["app"])
        if name == "../x" {
            figure(
                "suite names that escape",
                "../x, .., ., a/b, /etc, x/../../y, empty, NUL, a lookalike slash and 129 bytes: ConcordError .invalidSuiteName / exit 3: \(try run("sync-tool", ["set", dir, name, "k", "v"], timeout: 60).stderr.trimmed)"
            )
        }
    }
}
