import SybilCore

/// The shape every browsing result shares: an object with exactly one array member.
enum WorkspaceListing {
    /// Decodes `{"<key>": [item, …]}` with `decode` for each item.
    static func decode<T>(
        _ value: JSONValue, at path: JSONPath, key: String, _ decode: (JSONValue, JSONPath) throws(JSONError) -> T
    ) throws(JSONError) -> [T] {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys([key])
        var items: [T] = []
        for (index, item) in try reader.array(key).enumerated() {
            items.append(try decode(item, path.appending(key: key).appending(index: index)))
        }
        return items
    }
}
