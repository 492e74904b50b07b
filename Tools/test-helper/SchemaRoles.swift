import Concord
import Foundation

/// Roles for the schema-migration tests. Returns nil for a role it does not know.
///
/// - `schema-app DIR VERSION STEP...`: a program at schema VERSION (1: none; 2: `theme` renamed to
///   `appearance.theme`, `fontSize` converted from Int to Double, `legacy` dropped, `launchCount` a
///   counter) opens suite `app` of DIR and runs each STEP, printing one line per step:
///   `set:KEY=TEXT` and `int:KEY=N` print `ok` or `error CASE`; `get:KEY` prints `KEY=TYPE VALUE` or
///   `KEY=nil`; `incr:KEY` prints the new value; `sync:DIR` syncs this replica with DIR twice in this
///   process (so what this side's migrations wrote goes back) and prints `synced`.
enum SchemaRoles {
    static func schema(_ version: Int) -> Schema {
        guard version >= 2 else { return Schema(version: version) }
        return Schema(
            version: 2,
            migrations: [
                Migration(
                    to: 2,
                    .rename("theme", to: "appearance.theme"),
                    .convert("fontSize", from: Int.self, to: Double.self) { Double($0) },
                    .drop("legacy"),
                    .policy(.counter, forKey: "launchCount"))
            ])
    }

    static func run(_ role: String, _ args: [String]) throws -> Int32? {
        guard role == "schema-app" else { return nil }
        let store = try Store(path: args[0])
        let app = try store.suite("app", schema: schema(Int(args[1])!))
        for step in args.dropFirst(2) {
            let (verb, rest) = (step.prefix { $0 != ":" }, String(step.drop { $0 != ":" }.dropFirst()))
            let (key, text) = (String(rest.prefix { $0 != "=" }), String(rest.drop { $0 != "=" }.dropFirst()))
            do {
                switch verb {
                case "set":
                    try app.set(text, forKey: key)
                    say("ok")
                case "int":
                    try app.set(Int(text)!, forKey: key)
                    say("ok")
                case "incr": say(String(try app.increment(key)))
                case "get":
                    switch try app.value(forKey: key) {
                    case nil: say("\(key)=nil")
                    case .string(let s)?: say("\(key)=string \(s)")
                    case .int(let i)?: say("\(key)=int \(i)")
                    case .double(let d)?: say("\(key)=double \(d)")
                    case let other?: say("\(key)=\(other.typeName)")
                    }
                case "sync":
                    let other = try Store(path: rest)
                    try Synchronizer().sync(store, other)
                    try Synchronizer().sync(store, other)
                    say("synced")
                default:
                    say("unknown step \(step)")
                    return 2
                }
            } catch let error as ConcordError {
                say("error \((error as? ConcordError)?.code.rawValue ?? "\(error)")")
            }
        }
        return 0
    }
}
