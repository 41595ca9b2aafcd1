/// A key name that ``KeyStores/validate(name:)`` refuses.
public struct KeyNameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name as given.
    public var name: String

    /// Creates the error for `name`.
    public init(name: String) {
        self.name = name
    }

    /// One sentence quoting the name and saying what a name may hold.
    public var description: String {
        "The key name \(Self.quoted(name)) is not valid; use 1 to \(KeyStores.maximumNameLength) letters, digits, '.', '_' or '-'."
    }

    /// `'name'`, with control characters shown as `?` and a long name cut.
    private static func quoted(_ name: String) -> String {
        let shown = name.unicodeScalars.prefix(80).map { scalar in
            scalar.properties.generalCategory == .control ? "?" : String(scalar)
        }
        return "'" + shown.joined() + (name.unicodeScalars.count > 80 ? "…" : "") + "'"
    }
}
