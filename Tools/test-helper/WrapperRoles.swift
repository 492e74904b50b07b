import Foundation
import Concord

/// Roles for the wrapper tests (issue 4). Returns nil for a role it does not know.
///
/// - `stored-set DIR SUITE KEY TEXT`: sets KEY through a `@Stored` String property, prints `set`.
/// - `stored-remove DIR SUITE KEY`: resets KEY through `$property.reset()`, prints `removed`.
enum WrapperRoles {
    static func run(_ role: String, _ args: [String]) throws -> Int32? {
        switch role {
        case "stored-set":
            let suite = try Store(path: args[0]).suite(args[1])
            @Stored(args[2], in: suite) var value = ""
            try $value.set(args[3])
            say("set")
            return 0
        case "stored-remove":
            let suite = try Store(path: args[0]).suite(args[1])
            @Stored(args[2], in: suite) var value = ""
            try $value.reset()
            say("removed")
            return 0
        default:
            return nil
        }
    }
}
