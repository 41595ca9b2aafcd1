/// A storage operation failed: which one, on which path, and the system's reason. Never
/// contains the data being stored.
public struct StorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done, e.g. `write`, `rename`, `fsync`.
    public var operation: String
    /// The file or directory concerned.
    public var path: String
    /// The system's reason (from `errno`) or a description of the problem.
    public var reason: String

    /// Creates an error.
    public init(operation: String, path: String, reason: String) {
        self.operation = operation
        self.path = path
        self.reason = reason
    }

    /// `cannot <operation> '<path>': <reason>`.
    public var description: String { "cannot \(operation) '\(path)': \(reason)" }
}
