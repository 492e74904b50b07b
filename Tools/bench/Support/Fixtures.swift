/// Stores filled with the dataset, built once per system and size and shared by the workloads
/// that read them, each kept open in this process once opened.
final class Fixtures {
    private let scratch: ScratchDirectory
    private var directories: [String: String] = [:]
    private var subjects: [String: any Subject] = [:]

    init(scratch: ScratchDirectory) { self.scratch = scratch }

    /// The directory of `kind`'s store holding `size` keys, populated on first use.
    func directory(_ kind: SubjectKind, size: Int, progress: (String) -> Void) throws -> String {
        let id = "\(kind.rawValue)-\(size)"
        if let dir = directories[id] { return dir }
        let dir = try scratch.makeDirectory("fixture-" + id)
        progress("filling \(kind.displayName) with \(grouped(size)) keys")
        try kind.populate(directory: dir, count: size)
        directories[id] = dir
        return dir
    }

    /// `kind`'s store holding `size` keys, open in this process.
    func subject(_ kind: SubjectKind, size: Int, progress: (String) -> Void) throws -> any Subject {
        let id = "\(kind.rawValue)-\(size)"
        if let open = subjects[id] { return open }
        let subject = try kind.open(directory: try directory(kind, size: size, progress: progress))
        subjects[id] = subject
        return subject
    }
}
