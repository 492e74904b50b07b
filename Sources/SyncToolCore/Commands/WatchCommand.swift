import Concord
import Foundation
import Synchronization

/// `sync-tool watch DIR [SUITE [KEY]] [--json] [--count N] [--timeout SECONDS]`
struct WatchCommand: Command {
    static let spec = CommandSpec(
        name: "watch", abstract: "Print changes as they commit, from any process; exit after N changes or the timeout.",
        positionals: [
            .init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "Only this suite.", optional: true),
            .init(name: "KEY", help: "Only this key.", optional: true)
        ],
        options: [
            .init(name: "count", valueName: "N", help: "Exit 0 after N changes."),
            .init(name: "timeout", valueName: "SECONDS", help: "Exit 0 after this long.")
        ],
        flags: [.init(name: "json", help: "One JSON object per line: seq, suite, key, type, value or deleted, version, origin.")])

    let dir: String
    let suite: String?
    let key: String?
    let json: Bool
    let count: Int?
    let timeout: Double?

    init(_ a: ParsedArguments) throws {
        dir = a.positionals[0]
        suite = a.positional(1)
        key = a.positional(2)
        json = a.flag("json")
        count = try a.option("count").map { try Arguments.int($0, name: "--count") }
        timeout = try a.option("timeout").map { try Arguments.seconds($0, name: "--timeout") }
        if let count, count < 1 { throw CLIError.invalid("--count must be at least 1") }
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let store = try Arguments.openStore(dir)
        let done = DispatchSemaphore(value: 0)
        let seen = Atomic<Int>(0)
        let limit = count
        let format = json
        let handler: @Sendable (Change) -> Void = { change in
            if let limit, seen.load(ordering: .relaxed) >= limit { return }
            io.out(WatchCommand.line(change, json: format))
            let n = seen.add(1, ordering: .relaxed).newValue
            if let limit, n >= limit { done.signal() }
        }
        let failure = Mutex<ConcordError?>(nil)
        let onError: @Sendable (ConcordError) -> Void = { error in
            failure.withLock { $0 = error }
            done.signal()
        }
        let observation: ValueObservation<Change>
        if let suite {
            let observed = try store.suite(suite)
            observation = key.map { observed.changes(for: $0) } ?? observed.changes()
        } else {
            observation = store.changes()
        }
        let token = try observation.start(onError: onError, onChange: handler)
        io.err("watching \(store.directory) (replica \(store.replicaID))")
        if let timeout {
            _ = done.wait(timeout: .now() + timeout)
        } else {
            done.wait()
        }
        token.cancel()
        if let error = failure.withLock({ $0 }) { throw error }
        return .ok
    }

    static func line(_ c: Change, json: Bool) -> String {
        if json {
            var fields: [(String, String)] = [("seq", String(c.seq)), ("suite", ValueText.json(c.suite)), ("key", ValueText.json(c.key))]
            if let v = c.value {
                fields += [("type", ValueText.json(v.typeName)), ("value", JSONValue.render(v))]
            } else {
                fields += [("type", ValueText.json("deleted")), ("deleted", "true")]
            }
            fields += [("version", ValueText.json(c.version.description)), ("origin", ValueText.json(c.origin.description))]
            return ValueText.object(fields)
        }
        let shown = c.value.map { "\($0.typeName) \(printable(ValueText.plain($0)))" } ?? "deleted"
        return "\(c.seq)\t\(c.suite)\t\(printable(c.key))\t\(shown)\t\(c.version)\t\(c.origin)"
    }
}
