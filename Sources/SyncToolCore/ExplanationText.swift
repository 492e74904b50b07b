import Concord
import Foundation

/// An `Explanation` as `sync-tool why` prints it.
enum ExplanationText {
    static func lines(_ why: Explanation) -> [String] {
        let name = "\(why.suite)/\(printable(why.key))"
        var out: [String] = []
        if let value = why.value {
            out.append("\(name) = \(shown(value))")
        } else {
            out.append("\(name): nothing stored" + (why.record?.isTombstone == true ? " (deleted)" : why.expired ? " (expired)" : ""))
        }
        out.append(row("layer", why.layer.description))
        if why.isDeviceLocal { out.append(row("scope", "device-local: its values never leave this replica")) }
        if let record = why.record, let written = why.written, let writer = why.writer {
            out.append(row(record.isTombstone ? "deleted" : "written", "\(Explanation.text(written)) by \(describe(writer))"))
            out.append(row("version", record.version.description))
            if let expires = record.expires { out.append(row(why.expired ? "expired" : "expires", Explanation.text(expires))) }
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
                        ] + replica("writer", writer)
                            + (record.expires.map { [("expires", ValueText.json(Explanation.text($0))), ("expired", why.expired ? "true" : "false")] } ?? []))
                ))
        } else {
            fields.append(("record", "null"))
        }
        fields.append(("arrival", why.arrival.map(arrival) ?? "null"))
        fields.append(("device_local", why.isDeviceLocal ? "true" : "false"))
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
        case .argument: "argument"
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
                [("kind", ValueText.json("sync"))] + replica("peer", peer) + [
                    ("at", at.map { ValueText.json(Explanation.text($0)) } ?? "null")
                ])
        }
    }
}
