import Synchronization

/// The objects this process holds one of per directory (an environment, a replica's core), each found
/// by its directory's path while it lives: the registry holds them weakly.
///
/// A linked list of one class, neither a dictionary keyed by path nor an array, and not generic over
/// the objects' type, so a fresh process's first open makes the Swift runtime instantiate no generic
/// metadata for it (see the benchmark's open + first read). A caller casts the object it registered
/// back to its class.
///
/// ```swift
/// final class Index: Sendable { init(directory: String) {} }
/// let registry = DirectoryRegistry(keepsEntriesUntilReleased: false)
/// let index = registry.withEntries { entries -> Index in
///     if let found = entries.entry("/tmp/store")?.object as? Index { return found }
///     return entries.register(path: "/tmp/store") { _ in Index(directory: "/tmp/store") }
/// }
/// ```
package final class DirectoryRegistry: Sendable {
    /// One directory's object.
    package final class Entry: @unchecked Sendable {
        /// The directory.
        package let path: String
        /// The process it was registered in (`ForkGuard.generation`): a child forked after that does not find it.
        package let generation: Int
        /// The object, while it lives.
        package fileprivate(set) weak var object: AnyObject?
        /// Set once the object has let go of the directory (its deinitializer has finished). Until then
        /// an entry whose object is gone keeps its path, when the registry keeps entries until released.
        package let released = Atomic<Bool>(false)
        fileprivate var next: Entry?

        fileprivate init(path: String, generation: Int) { (self.path, self.generation) = (path, generation) }
    }

    /// The entries, newest first, as `withEntries` hands them out.
    package struct Entries: Sendable {
        fileprivate var head: Entry?
        fileprivate let keepsEntriesUntilReleased: Bool

        /// This process's entry of `path`: nil when there is none, or when the one there was registered
        /// in a parent before `fork()`.
        package func entry(_ path: String, generation: Int = 0) -> Entry? {
            var entry = head
            while let current = entry {
                if current.path == path { return current.generation == generation ? current : nil }
                entry = current.next
            }
            return nil
        }

        /// Registers the object `make` returns (given its entry) for `path`, first in the list; drops the
        /// path's old entry, entries of another generation, and entries whose object is gone (and, when
        /// the registry keeps entries until released, has let go of its directory).
        package mutating func register<Object: AnyObject>(path: String, generation: Int = 0, _ make: (Entry) throws -> Object) rethrows -> Object {
            let registration = Entry(path: path, generation: generation)
            let object = try make(registration)
            registration.object = object
            var kept: Entry?
            var entry = head
            while let current = entry {
                entry = current.next
                let held = current.object != nil || (keepsEntriesUntilReleased && !current.released.load(ordering: .acquiring))
                if current.path != path && current.generation == generation && held {
                    current.next = kept
                    kept = current
                }
            }
            registration.next = kept
            head = registration
            return object
        }
    }

    private let entries: Mutex<Entries>

    /// An empty registry. With `keepsEntriesUntilReleased`, an entry whose object is gone still holds
    /// its path until its `released` is set.
    package init(keepsEntriesUntilReleased: Bool) {
        entries = Mutex(Entries(head: nil, keepsEntriesUntilReleased: keepsEntriesUntilReleased))
    }

    /// Runs `body` with the entries, under the registry's lock.
    package func withEntries<R: Sendable>(_ body: (inout Entries) throws -> R) rethrows -> R {
        try entries.withLock { try body(&$0) }
    }
}
