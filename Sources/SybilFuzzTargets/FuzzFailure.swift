/// An invariant a fuzz target checks did not hold for an input: the parser did not crash, but
/// it answered differently depending on how the bytes were split, or a decoded value did not
/// survive being written and read again.
public struct FuzzFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The target that found it.
    public var target: FuzzTarget
    /// Which invariant broke and how, e.g. `fed whole: 2 events; fed byte by byte: 1 event`.
    public var message: String

    /// Creates a failure.
    public init(target: FuzzTarget, _ message: String) {
        self.target = target
        self.message = message
    }

    /// `target: message`.
    public var description: String { "\(target.rawValue): \(message)" }
}
