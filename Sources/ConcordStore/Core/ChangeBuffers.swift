/// What the write core builds one change in: its record key, its row and its journal entry. A
/// transaction reuses one set from change to change, so a change allocates none of them.
struct ChangeBuffers {
    var key: ByteWriter
    var row: ByteWriter
    var entry: ByteWriter

    init() {
        key = ByteWriter(capacity: 64)
        row = ByteWriter(capacity: 128)
        entry = ByteWriter(capacity: 192)
    }

    private init(key: ByteWriter, row: ByteWriter, entry: ByteWriter) {
        (self.key, self.row, self.entry) = (key, row, entry)
    }

    /// Buffers without storage: what a transaction holds while a change has its own.
    static var none: ChangeBuffers { ChangeBuffers(key: ByteWriter(), row: ByteWriter(), entry: ByteWriter()) }
}
