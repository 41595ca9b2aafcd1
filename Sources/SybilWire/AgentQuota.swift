import SybilCore

/// A storage quota snapshot (`{"usedBytes": …, "limitBytes": …}`): information for people;
/// a client reserves nothing against it.
public struct AgentQuota: Sendable, Hashable {
    /// Bytes stored.
    public var usedBytes: Int64
    /// Bytes allowed.
    public var limitBytes: Int64

    /// Creates a snapshot.
    public init(usedBytes: Int64, limitBytes: Int64) {
        self.usedBytes = usedBytes
        self.limitBytes = limitBytes
    }

    /// Decodes a snapshot with exactly its two members, each 0…2^53−1.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentQuota {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(["usedBytes", "limitBytes"])
        let range: ClosedRange<Int64> = 0...JSONValueReader.maxSafeInteger
        return AgentQuota(
            usedBytes: try reader.integer("usedBytes", in: range),
            limitBytes: try reader.integer("limitBytes", in: range))
    }

    /// The snapshot as contract JSON.
    public var jsonValue: JSONValue {
        ["usedBytes": .number(JSONNumber(usedBytes)), "limitBytes": .number(JSONNumber(limitBytes))]
    }
}
