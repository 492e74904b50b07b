import Concord
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `sync-tool serve` fed hand-made streams: each bad frame is refused with a clear error and its
/// exit code, and nothing from it is merged.
@Suite("sync-tool serve: hostile frames", .offThePool)
struct ServeFrameTests {
    let tmp: TemporaryDirectory
    let source: Store
    let target: String

    init() throws {
        tmp = try TemporaryDirectory()
        source = try Store(path: tmp.path("source"))
        try source.suite("prefs").set("dark", forKey: "theme")
        try source.suite("prefs").set(3, forKey: "size")
        target = tmp.path("target")
        _ = try Store(path: target)
    }

    var hello: [UInt8] { SyncFrame.hello(SyncHello(replica: source.replicaID, selection: .all, knowledge: .none, lastSeq: try! source.lastSeq())).encoded() }
    /// The client's verdict on the server's claims after the hellos (here: nothing to check).
    var verdict: [UInt8] { SyncFrame.verdict(SyncVerdict(ContactCheck())).encoded() }
    var batch: [UInt8] {
        let delta = try! DeltaReader.read(from: source, for: nil, alreadyMerged: .none)
        return SyncFrame.batch(delta.batch).encoded()
    }

    /// Runs serve with `input` on its standard input (then end of stream).
    func serve(_ input: [UInt8], _ extra: [String] = []) throws -> ProcessResult {
        let file = tmp.path("input-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: file, contents: Data(input))
        return try run(
            "/bin/sh",
            [
                "-c", "exec \"$0\" serve \"$1\" --timeout 5 \(extra.joined(separator: " ")) < \"$2\"",
                Binaries.path("sync-tool"), target, file
            ])
    }

    func targetKeys() throws -> [String] { try Store(path: target).suite("prefs").keys() }

    @Test("well-formed frames are merged (the control for the cases below); a stream that ends where an acknowledgement is due exits 5")
    func control() throws {
        let result = try serve(hello + verdict + batch + SyncFrame.end.encoded())
        #expect(try targetKeys().sorted() == ["size", "theme"])
        #expect(result.status == 5)
        #expect(result.stderr.contains("closed while waiting for an acknowledgement"), "\(result.stderr)")
    }

    var relayHello: [UInt8] {
        var hello = SyncHello(replica: SyncHello.relayPlaceholder, selection: .all, knowledge: .none, lastSeq: 0)
        hello.relay = true
        return SyncFrame.hello(hello).encoded()
    }

    @Test("a relay introduces the replica it relays for; its batch is merged as that replica's, and it may close after whole batches (exit 0)")
    func relayIntroduction() throws {
        let result = try serve(relayHello + hello + verdict + batch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try targetKeys().sorted() == ["size", "theme"])
        #expect(try Store(path: target).peerCursors().peers == [source.replicaID])
    }

    @Test("a relay that sends a batch where the introduction belongs: exit 3, nothing merged")
    func relayWithoutIntroduction() throws {
        let result = try serve(relayHello + batch)
        #expect(result.status == 3)
        #expect(result.stderr.contains("must be the hello of the replica it relays for"), "\(result.stderr)")
        #expect(try targetKeys().isEmpty)
    }

    @Test("a batch cut short: exit 3, 'ended in the middle of a frame', nothing merged")
    func truncated() throws {
        let whole = batch
        let result = try serve(hello + verdict + Array(whole[..<(whole.count - 7)]))
        #expect(result.status == 3)
        #expect(result.stderr.contains("ended in the middle of a frame"), "\(result.stderr)")
        #expect(try targetKeys().isEmpty)
    }

    @Test("a damaged byte in a batch: exit 3, checksum error, nothing merged")
    func corrupted() throws {
        var damaged = batch
        damaged[damaged.count / 2] ^= 0x40
        let result = try serve(hello + verdict + damaged + SyncFrame.end.encoded())
        #expect(result.status == 3)
        #expect(result.stderr.contains("checksum"), "\(result.stderr)")
        #expect(try targetKeys().isEmpty)
    }

    @Test("a frame declaring 2 GiB: refused from its header, exit 3, nothing merged")
    func oversized() throws {
        let header: [UInt8] = [2, 0x80, 0, 0, 0]
        let result = try serve(hello + verdict + header + Array(repeating: 0, count: 64))
        #expect(result.status == 3)
        #expect(result.stderr.contains("over the limit"), "\(result.stderr)")
        #expect(try targetKeys().isEmpty)
    }

    @Test("garbage instead of a hello, and a newer protocol version: refused, exit 3")
    func garbageAndNewerVersion() throws {
        let garbage = try serve(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        #expect(garbage.status == 3)
        #expect(garbage.stderr.contains("unknown kind"), "\(garbage.stderr)")
        var newer = SyncHello(replica: source.replicaID, selection: .all, knowledge: .none, lastSeq: 0)
        newer.version = SyncHello.currentVersion + 1
        let result = try serve(SyncFrame.hello(newer).encoded() + batch)
        #expect(result.status == 3)
        #expect(result.stderr.contains("newer"), "\(result.stderr)")
        #expect(try targetKeys().isEmpty)
    }

    @Test("a batch where the client's verdict on the cursors belongs, and a hello of the older protocol: refused, exit 3, nothing merged")
    func missingVerdictAndOlderVersion() throws {
        let skipped = try serve(hello + batch + SyncFrame.end.encoded())
        #expect(skipped.status == 3)
        #expect(skipped.stderr.contains("where its verdict on the cursors belongs"), "\(skipped.stderr)")
        var older = SyncHello(replica: source.replicaID, selection: .all, knowledge: .none, lastSeq: 0)
        older.version = SyncHello.currentVersion - 1
        let result = try serve(SyncFrame.hello(older).encoded() + verdict + batch)
        #expect(result.status == 3)
        #expect(result.stderr.contains("the oldest this side accepts"), "\(result.stderr)")
        #expect(try targetKeys().isEmpty)
    }

    @Test("a read-only server refuses a batch (exit 3, nothing merged) but sends its own changes")
    func readOnly() throws {
        let result = try serve(hello + verdict + batch + SyncFrame.end.encoded(), ["--read-only"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("read-only"), "\(result.stderr)")
        #expect(try targetKeys().isEmpty)
        // Through the client: a read-only remote is pulled from, never pushed to.
        try Store(path: target).suite("prefs").set("served", forKey: "motto")
        let local = try Store(path: tmp.path("local"))
        try local.suite("prefs").set("mine", forKey: "only-here")
        let channel = try LocalServe(target: target, arguments: ["--read-only"])
        let session = try SyncSession(store: local, channel: channel.channel)
        let round = try session.round()
        channel.close()
        #expect(session.peer.readOnly)
        #expect(round.aToB.batches == 0)
        #expect(round.bToA.recordsChanged == 1)
        #expect(try local.suite("prefs").get("motto", as: String.self) == "served")
        #expect(try targetKeys() == ["motto"])
    }

    @Test("silence past --timeout: exit 5 with 'sent nothing for'")
    func silence() throws {
        let serve = try LocalServe(target: target, arguments: ["--timeout", "0.5"])
        try serve.channel.send(.hello(SyncHello(replica: source.replicaID, selection: .all, knowledge: .none, lastSeq: 0)))
        let partial = batch
        _ = write(serve.channel.output, Array(partial[..<10]), 10) // half a frame, then silence
        let status = serve.waitForExit()
        #expect(status == 5)
        #expect(serve.errors.contains("sent nothing for 0.5 s"), "\(serve.errors)")
        #expect(try targetKeys().isEmpty)
    }

    @Test("a client that stops reading: serve gives up after --timeout (exit 5, one line saying the peer stopped reading)")
    func clientStopsReading() throws {
        let value = String(repeating: "v", count: 4_000)
        try Store(path: target).suite("prefs").batch { b in
            for i in 0..<400 { try b.set("\(i) \(value)", forKey: "key-\(i)") } // 1.6 MB: far more than a pipe holds
        }
        let serve = try LocalServe(target: target, arguments: ["--timeout", "1"])
        try serve.channel.send(.hello(SyncHello(replica: source.replicaID, selection: .all, knowledge: .none, lastSeq: 0)))
        try serve.channel.send(.verdict(SyncVerdict(ContactCheck())))
        try serve.channel.send(.end) // nothing from this side: the server sends its changes, and nobody reads them
        let status = serve.waitForExit()
        #expect(status == 5, "exit 5, not a hang (-1): \(serve.errors)")
        #expect(serve.errors.contains("the peer stopped reading"), "\(serve.errors)")
        #expect(serve.errors.split(separator: "\n").count == 1, "one line: \(serve.errors)")
    }
}

/// `sync-tool serve` as a local child with pipes (no ssh), for driving the protocol by hand.
final class LocalServe {
    let process = Process()
    let channel: SyncChannel
    private let toChild = Pipe(), fromChild = Pipe(), errorFile: String

    init(target: String, arguments: [String]) throws {
        errorFile = NSTemporaryDirectory() + "/concord-serve-\(UUID().uuidString).err"
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: Binaries.path("sync-tool"))
        process.arguments = ["serve", target] + arguments
        process.standardInput = toChild
        process.standardOutput = fromChild
        let errorHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
        process.standardError = errorHandle
        try process.run()
        try? errorHandle.close() // the child has its own copy; ours would leak with the Process (see ChildProcess)
        channel = SyncChannel(input: fromChild.fileHandleForReading.fileDescriptor, output: toChild.fileHandleForWriting.fileDescriptor, timeout: 30)
    }

    var errors: String { (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "" }

    func close() {
        try? toChild.fileHandleForWriting.close()
        _ = waitForExit()
    }

    /// The exit status (within 30 s), reaping the child itself if Foundation has not noticed its exit.
    func waitForExit() -> Int32 {
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline {
            var status: Int32 = 0
            if waitpid(process.processIdentifier, &status, WNOHANG) == process.processIdentifier {
                return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            }
            usleep(2_000)
        }
        return process.isRunning ? -1 : process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: errorFile)
    }
}
