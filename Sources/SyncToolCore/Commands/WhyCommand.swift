import Concord
import Foundation

/// `sync-tool why DIR SUITE KEY [--json]`
struct WhyCommand: Command {
    static let spec = CommandSpec(
        name: "why", abstract: "Explain a value: its layer, version time and writer, how it arrived, its policy and parts, the writes it beat.",
        positionals: [.init(name: "DIR", help: "The replica directory."), .init(name: "SUITE", help: "The suite name."), .init(name: "KEY", help: "The key.")],
        flags: [.init(name: "json", help: "Print one JSON object.")],
        discussion: """
            Prints the value a read returns and the layer it came from (the stored record, or nothing: \
            defaults registered by a program live in that program only), the stored record's version as \
            a time and the replica that wrote it (with the name it gave itself, sync-tool name), how the \
            record arrived (written by a process of this replica, or merged by a sync from which peer and \
            when), the merge policy and, for a counter, set, max or min key, each replica's part, and the \
            writes it beat (the conflict log's losers for the key, newest first, numbered for \
            sync-tool restore --conflict N). A key with nothing stored is not an error: it says so (exit 0).
            """)

    let dir, suite, key: String
    let json: Bool

    init(_ a: ParsedArguments) throws {
        (dir, suite, key) = (a.positionals[0], a.positionals[1], a.positionals[2])
        json = a.flag("json")
    }

    func run(_ io: CommandIO) throws -> ExitCode {
        let why = try Arguments.openStore(dir).suite(suite).explain(key)
        if json {
            io.out(ExplanationText.json(why))
        } else {
            for line in ExplanationText.lines(why) { io.out(line) }
        }
        return .ok
    }
}

/// An `Explanation` as `sync-tool why` prints it.
enum ExplanationText {
    static func lines(_ why: Explanation) -> [String] {
        let name = "\(why.suite)/\(printable(why.key))"
        var out: [String] = []
        if let value = why.value {
            out.append("\(name) = \(shown(value))")
        } else {
            out.append("\(name): nothing stored" + (why.record?.isTombstone == true ? " (deleted)" : ""))
        }
        out.append(row("layer", why.layer.description))
        if let record = why.record, let written = why.written, let writer = why.writer {
            out.append(row(record.isTombstone ? "deleted" : "written", "\(Explanation.text(written)) by \(describe(writer))"))
            out.append(row("version", record.version.description))
        }
        if let arrival = why.arrival { out.append(row("arrived", describe(arrival))) }
        out.append(row("policy", why.policy.rawValue))
        for part in why.parts {
            let value = part.value.map(shown) ?? "deleted"
            out.append(row(part.isBase ? "base" : "part", "\(value) from \(describe(part.replica)), \(Explanation.text(part.time))"))
        }
        if why.beaten.isEmpty {
            out.append(row("beaten", "no concurrent writes in the conflict log"))
        } else {
            out.append(row("beaten", "\(why.beaten.count) concurrent write\(why.beaten.count == 1 ? "" : "s"), newest first (sync-tool restore --conflict N):"))
            for b in why.beaten {
                out.append(
                    "  \(b.number). \(b.value.map(shown) ?? "deleted") written \(Explanation.text(b.written)) by \(describe(b.writer)), "
                        + "\(describe(b.origin)); version \(b.version), beaten by \(b.beatenBy), found \(Explanation.text(b.detected))")
            }
        }
        return out
    }

    static func json(_ why: Explanation) -> String {
        var fields: [(String, String)] = [("suite", ValueText.json(why.suite)), ("key", ValueText.json(why.key)), ("layer", ValueText.json(layer(why.layer)))]
        if let value = why.value {
            fields += [("type", ValueText.json(value.typeName)), ("value", JSONValue.render(value))]
        } else {
            fields.append(("value", "null"))
        }
        if let record = why.record, let written = why.written, let writer = why.writer {
            fields.append(
                (
                    "record",
                    ValueText.object(
                        [
                            ("deleted", record.isTombstone ? "true" : "false"), ("version", ValueText.json(record.version.description)),
                            ("written", ValueText.json(Explanation.text(written)))
                        ] + replica("writer", writer))
                ))
        } else {
            fields.append(("record", "null"))
        }
        fields.append(("arrival", why.arrival.map(arrival) ?? "null"))
        fields.append(("policy", ValueText.json(why.policy.rawValue)))
        let parts = why.parts.map { p in
            ValueText.object(
                [("base", p.isBase ? "true" : "false")] + replica("replica", p.replica) + [
                    ("value", p.value.map(JSONValue.render) ?? "null"), ("time", ValueText.json(Explanation.text(p.time)))
                ])
        }
        fields.append(("parts", "[" + parts.joined(separator: ",") + "]"))
        let beaten = why.beaten.map { b in
            ValueText.object(
                [("number", String(b.number))]
                    + (b.value.map { [("type", ValueText.json($0.typeName)), ("value", JSONValue.render($0))] } ?? [("deleted", "true")])
                    + [("version", ValueText.json(b.version.description)), ("written", ValueText.json(Explanation.text(b.written)))]
                    + replica("writer", b.writer) + [
                        ("origin", arrival(b.origin)), ("beaten_by", ValueText.json(b.beatenBy.description)),
                        ("detected", ValueText.json(Explanation.text(b.detected)))
                    ])
        }
        fields.append(("beaten", "[" + beaten.joined(separator: ",") + "]"))
        return ValueText.object(fields)
    }

    static func layer(_ layer: Explanation.Layer) -> String {
        switch layer {
        case .scopeOverride: "scope_override"
        case .override: "override"
        case .stored: "stored"
        case .registeredDefault: "registered_default"
        case .settingDefault: "setting_default"
        case .nothing: "nothing"
        }
    }

    static func shown(_ value: Value) -> String { "\(value.typeName) \(printable(JSONValue.render(value)))" }

    static func describe(_ replica: NamedReplica) -> String {
        replica.name.map { "\(replica.id) (\(printable($0)))" } ?? "\(replica.id)"
    }

    static func describe(_ arrival: Explanation.Arrival) -> String {
        switch arrival {
        case .thisProcess: "written by this process"
        case .otherProcess: "written by a process of this replica"
        case .sync(let peer, let at): "merged by a sync from \(describe(peer))" + (at.map { " at \(Explanation.text($0))" } ?? "")
        }
    }

    private static func row(_ label: String, _ text: String) -> String { "  " + label.padding(toLength: 9, withPad: " ", startingAt: 0) + text }

    private static func replica(_ field: String, _ replica: NamedReplica) -> [(String, String)] {
        [(field, ValueText.json(replica.id.description))] + (replica.name.map { [(field + "_name", ValueText.json($0))] } ?? [])
    }

    private static func arrival(_ arrival: Explanation.Arrival) -> String {
        switch arrival {
        case .thisProcess: return ValueText.object([("kind", ValueText.json("this_process"))])
        case .otherProcess: return ValueText.object([("kind", ValueText.json("other_process"))])
        case .sync(let peer, let at):
            return ValueText.object(
                [("kind", ValueText.json("sync"))] + replica("peer", peer) + [("at", at.map { ValueText.json(Explanation.text($0)) } ?? "null")])
        }
    }
}
