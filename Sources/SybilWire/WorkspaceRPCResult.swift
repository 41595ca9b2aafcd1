import SybilCore

/// The success answer of the desktop RPC: `{"result": …}`, exactly that member.
public enum WorkspaceRPCResult {
    /// The answer wrapping `result`.
    public static func jsonValue(_ result: JSONValue) -> JSONValue {
        ["result": result]
    }

    /// Parses an answer and decodes its `result` with `decode`; errors name `result.…`.
    public static func decode<T>(
        json bytes: [UInt8], _ decode: (JSONValue, JSONPath) throws(JSONError) -> T
    ) throws(JSONError) -> T {
        let reader = try JSONObjectReader(try JSONReader().parse(bytes), at: .root)
        try reader.requireExactKeys(["result"])
        return try reader.decode("result", decode)
    }
}
