/// A list of messages kept undelivered whose document would be larger than a launch reads back
/// (``UndeliveredMessagesPersistence/maximumDocumentBytes``): it is not written, so the
/// document saved before stays readable, and the list keeps the messages in memory.
public struct UndeliveredMessagesTooLarge: Error, Sendable, Hashable, CustomStringConvertible {
    /// The size the document would have had, in bytes.
    public var bytes: Int
    /// The largest document written, in bytes.
    public var limit: Int

    /// A document of `bytes` refused for `limit`.
    public init(bytes: Int, limit: Int) {
        self.bytes = bytes
        self.limit = limit
    }

    public var description: String {
        "the list would take \(bytes) bytes, more than the \(limit) bytes read back at the next launch; take some messages back so the others can be saved"
    }
}
