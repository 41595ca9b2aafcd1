import SybilCore

/// `GET /v1/models`: OpenAI's list of the models a server offers (`{"object": "list",
/// "data": [{"id": …, "object": "model", "created": …, "owned_by": …}]}`). Read leniently
/// where servers differ (Ollama, llama.cpp and vLLM add members or leave `created` out), and
/// strictly where a client depends on it: every entry needs a non-empty string `id`.
public struct ModelList: Sendable, Hashable {
    /// One model.
    public struct Model: Sendable, Hashable {
        /// The id a request names.
        public var id: String
        /// Seconds since 1970, when the server says.
        public var created: Int64?
        /// Who owns it, when the server says.
        public var ownedBy: String?

        /// A model.
        public init(id: String, created: Int64? = nil, ownedBy: String? = nil) {
            self.id = id
            self.created = created
            self.ownedBy = ownedBy
        }
    }

    /// The models, in the server's order.
    public var models: [Model]

    /// A list.
    public init(models: [Model]) {
        self.models = models
    }

    /// The most models read from one answer.
    public static let maximumModels = 10_000

    /// Decodes a list; unknown members are ignored.
    public static func decode(_ value: JSONValue, at path: JSONPath = .root) throws(JSONError) -> ModelList {
        let object = try JSONObjectReader(value, at: path)
        let data = try object.array("data")
        guard data.count <= maximumModels else {
            throw .contract(path.appending(key: "data"), "at most \(maximumModels) models, got \(data.count)")
        }
        var models: [Model] = []
        for (index, entry) in data.enumerated() {
            let entryPath = path.appending(key: "data").appending(index: index)
            let model = try JSONObjectReader(entry, at: entryPath)
            var created: Int64?
            if let value = model.optionalValue("created"), value != .null {
                created = try JSONValueReader.integer(value, at: entryPath.appending(key: "created"))
            }
            models.append(
                Model(
                    id: try model.nonEmptyString("id"), created: created,
                    ownedBy: try model.optionalString("owned_by")))
        }
        return ModelList(models: models)
    }

    /// The list as JSON.
    public var json: JSONValue {
        [
            "object": "list",
            "data": .array(
                models.map { model in
                    var members = [JSONMember("id", .string(model.id)), JSONMember("object", "model")]
                    if let created = model.created {
                        members.append(JSONMember("created", .number(JSONNumber(created))))
                    }
                    if let ownedBy = model.ownedBy { members.append(JSONMember("owned_by", .string(ownedBy))) }
                    return .object(JSONObject(members))
                }),
        ]
    }
}
