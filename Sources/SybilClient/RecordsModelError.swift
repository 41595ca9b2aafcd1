import SybilCore

/// Why a record could not be logged.
public enum RecordsModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A value breaks the records contract; the error names the member (`score`, `note`, …).
    case invalid(JSONError)
    /// The device's store failed; nothing was saved.
    case storage(String)

    /// One sentence for a person.
    public var description: String {
        switch self {
        case .invalid(let error): "\(error.path): \(error.message)"
        case .storage(let reason): "The record could not be saved: \(reason)"
        }
    }
}
