/// Where a value sits in a JSON document, e.g. `timeline[3].sourceOrder[0]`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step from a container to a child.
    public enum Component: Sendable, Hashable {
        /// An object member by name.
        case key(String)
        /// An array element by zero-based position.
        case index(Int)
    }

    /// The steps from the document root, outermost first.
    public private(set) var components: [Component]

    /// The document root.
    public static let root = JSONPath(components: [])

    /// A path from its components, outermost first.
    public init(components: [Component]) {
        self.components = components
    }

    /// This path extended by an object member name.
    public func appending(key: String) -> JSONPath {
        var copy = self
        copy.components.append(.key(key))
        return copy
    }

    /// This path extended by an array position.
    public func appending(index: Int) -> JSONPath {
        var copy = self
        copy.components.append(.index(index))
        return copy
    }

    /// Whether this is the document root.
    public var isRoot: Bool { components.isEmpty }

    /// The path in dotted form: `timeline[3].sourceOrder[0]`; keys that are not plain
    /// identifiers are quoted (`meta["content-type"]`); the root is `$`.
    public var description: String {
        if components.isEmpty { return "$" }
        var text = ""
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key):
                if Self.isPlainIdentifier(key) {
                    text += text.isEmpty ? key : "." + key
                } else {
                    text += "[" + JSONWriter.quoted(key) + "]"
                }
            }
        }
        return text
    }

    private static func isPlainIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return key.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }
}
