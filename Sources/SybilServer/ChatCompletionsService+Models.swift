import SybilCore
import SybilNet

extension ChatCompletionsService {
    /// The `created` time of the scripted models: a fixed date (2025-01-01), so lists compare.
    static let modelsCreated: Int64 = 1_735_689_600

    /// `GET /v1/models`: OpenAI's list shape. With `--upstream`, the upstream's list.
    func listModels() async -> HTTPServerResponse {
        if let upstream, let base = options.upstream {
            return await forwardModels(path: "v1/models", to: base, with: upstream)
        }
        return .json(["object": "list", "data": .array(Self.models.map(Self.modelObject))])
    }

    /// `GET /v1/models/{id}`: one model, or 404 `model_not_found`. With `--upstream`, the
    /// upstream's answer.
    func model(id: String) async throws(APIError) -> HTTPServerResponse {
        if let upstream, let base = options.upstream {
            return await forwardModels(path: "v1/models/\(id)", to: base, with: upstream)
        }
        guard Self.models.contains(id) else {
            throw APIError(
                status: 404,
                message: "The model does not exist; this server offers \(Self.models.joined(separator: ", ")).",
                code: "model_not_found", param: "model")
        }
        return .json(Self.modelObject(id))
    }

    private static func modelObject(_ id: String) -> JSONValue {
        [
            "id": .string(id), "object": "model", "created": .number(JSONNumber(modelsCreated)),
            "owned_by": "sybil",
        ]
    }
}
