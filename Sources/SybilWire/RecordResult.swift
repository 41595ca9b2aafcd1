import SybilCore

/// What the server did with one record of a batch: `created`, `duplicate` (the same id with
/// the same content was already stored: a retry) or `rejected` with the reason.
public struct RecordResult: Sendable, Hashable {
    /// The outcome.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// Stored now.
        case created
        /// Stored before with the same content; nothing changed.
        case duplicate
        /// Not stored; ``RecordResult/error`` says why.
        case rejected

        /// Whether the server holds the record, so the client may mark it synced.
        public var isStored: Bool { self != .rejected }
    }

    /// Why a record was rejected.
    public struct Rejection: Sendable, Hashable {
        /// `invalid_record` (a member breaks a rule) or `record_conflict` (the id is stored
        /// with other content).
        public var code: String
        /// One sentence naming the member and the rule.
        public var message: String
        /// The member at fault, e.g. `records[3].score`.
        public var param: String?

        /// A member breaks a rule.
        public static let invalidRecord = "invalid_record"
        /// The id was stored with other content.
        public static let recordConflict = "record_conflict"

        /// Creates a rejection.
        public init(code: String, message: String, param: String? = nil) {
            self.code = code
            self.message = message
            self.param = param
        }

        /// Decodes `{code, message, param?}`; other members are ignored.
        public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> Rejection {
            let reader = try JSONObjectReader(value, at: path)
            return Rejection(
                code: try reader.nonEmptyString("code"), message: try reader.string("message"),
                param: try reader.optionalString("param"))
        }

        /// The rejection as contract JSON.
        public var jsonValue: JSONValue {
            var members = [JSONMember("code", .string(code)), JSONMember("message", .string(message))]
            if let param { members.append(JSONMember("param", .string(param))) }
            return .object(JSONObject(members))
        }
    }

    /// The record's id; `nil` only for a rejected record whose id could not be read.
    public var id: String?
    /// The outcome.
    public var status: Status
    /// Why, for a rejected record (and only then).
    public var error: Rejection?

    /// Creates a result; `error` must be given exactly when `status` is `rejected`.
    public init(id: String?, status: Status, error: Rejection? = nil) {
        precondition((status == .rejected) == (error != nil), "a rejected result, and only one, carries an error")
        precondition(id != nil || status == .rejected, "a stored record's result names its id")
        self.id = id
        self.status = status
        self.error = error
    }

    /// Decodes a result: `id` (a string, or `null` when rejected), `status`, and `error`
    /// exactly when rejected. Other members are ignored.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> RecordResult {
        let reader = try JSONObjectReader(value, at: path)
        let statusText = try reader.string("status")
        guard let status = Status(rawValue: statusText) else {
            throw .contract(
                path.appending(key: "status"),
                "must be \"created\", \"duplicate\" or \"rejected\", got \(JSONWriter.quoted(String(statusText.prefix(40))))"
            )
        }
        let id = try reader.nullableString("id")
        if id == nil && status != .rejected {
            throw .contract(path.appending(key: "id"), "must name the record when it is \(status.rawValue)")
        }
        let error: Rejection?
        if status == .rejected {
            error = try reader.decode("error", Rejection.decode)
        } else {
            guard reader.optionalValue("error") == nil else {
                throw .contract(path.appending(key: "error"), "only a rejected record carries an error")
            }
            error = nil
        }
        return RecordResult(id: id, status: status, error: error)
    }

    /// The result as contract JSON (`error` only when rejected).
    public var jsonValue: JSONValue {
        var members = [
            JSONMember("id", id.map(JSONValue.string) ?? .null), JSONMember("status", .string(status.rawValue)),
        ]
        if let error { members.append(JSONMember("error", error.jsonValue)) }
        return .object(JSONObject(members))
    }
}
