import SybilCore

/// One call of the desktop RPC (`POST /v1/workspaces/rpc`, docs/api/workspaces.md):
/// `{"method", "callKey", "params"}`, exactly these members. `callKey` is `null` for reads;
/// calls with effects carry one, and the desktop runs each key at most once.
public struct WorkspaceRPCRequest: Sendable, Hashable {
    /// The method, e.g. `sessions.list` (unknown methods are the server's to refuse).
    public var method: String
    /// The call key that makes a retry safe, `nil` for reads.
    public var callKey: String?
    /// The method's parameters.
    public var params: JSONObject

    /// Creates a request.
    public init(method: String, callKey: String? = nil, params: JSONObject = JSONObject()) {
        self.method = method
        self.callKey = callKey
        self.params = params
    }

    /// Parses and decodes a request body.
    public static func decode(json bytes: [UInt8]) throws(JSONError) -> WorkspaceRPCRequest {
        let reader = try JSONObjectReader(try JSONReader().parse(bytes), at: .root)
        try reader.requireExactKeys(["method", "callKey", "params"])
        let params = try JSONObjectReader(try reader.value("params"), at: JSONPath.root.appending(key: "params"))
        return WorkspaceRPCRequest(
            method: try reader.nonEmptyString("method"), callKey: try reader.nullableString("callKey"),
            params: params.object)
    }

    /// A reader over ``params`` whose errors name `params.<member>`. A decoded request's params
    /// were checked by ``decode(json:)``; params built in code with a repeated member name are
    /// a programming error.
    public var paramsReader: JSONObjectReader {
        do {
            return try JSONObjectReader(.object(params), at: JSONPath.root.appending(key: "params"))
        } catch {
            preconditionFailure("params built in code repeat a member: \(error)")
        }
    }

    /// The request as contract JSON.
    public var jsonValue: JSONValue {
        ["method": .string(method), "callKey": callKey.map(JSONValue.string) ?? .null, "params": .object(params)]
    }

    /// The request body's bytes.
    public var body: [UInt8] { Array(JSONWriter().string(from: jsonValue).utf8) }
}
