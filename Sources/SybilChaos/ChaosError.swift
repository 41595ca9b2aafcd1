/// A problem the driver or the checker cannot go on with, as a sentence.
public struct ChaosError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}
