import SybilCore
import SybilStore

/// A provider and model the person chose, kept in preferences (seed 003): Quick Question keeps
/// its own choice under ``quickQuestionKey``, separate from the regular chat's
/// ``regularChatKey``, so changing one never changes the other.
public struct ChatModelChoice: Sendable, Hashable {
    /// The provider, e.g. `openai`.
    public var provider: String
    /// The model, e.g. `chat-latest`.
    public var model: String

    /// The longest provider or model name accepted, in UTF-8 bytes.
    public static let maximumNameBytes = 200
    /// Quick Question's default: OpenAI's `chat-latest`.
    public static let quickQuestionDefault = ChatModelChoice(provider: "openai", model: "chat-latest")
    /// The preference key of Quick Question's choice.
    public static let quickQuestionKey = "quick-question.model-choice.v1"
    /// The preference key of the regular chat's choice (never read by Quick Question).
    public static let regularChatKey = "chat.model-choice.v1"

    /// Creates a choice.
    public init(provider: String, model: String) {
        self.provider = provider
        self.model = model
    }

    /// The stored form: `{"provider":"…","model":"…"}`.
    public var bytes: [UInt8] {
        JSONWriter().bytes(from: ["provider": .string(provider), "model": .string(model)])
    }

    /// Reads the stored form strictly: exactly the two members, each a non-blank string of at
    /// most ``maximumNameBytes`` bytes.
    public init(bytes: [UInt8]) throws(JSONError) {
        let reader = try JSONObjectReader(
            JSONReader(limits: .init(maxDepth: 2, maxBytes: 4_096)).parse(bytes), at: .root)
        try reader.requireExactKeys(["provider", "model"])
        let provider = try reader.nonBlankString("provider")
        let model = try reader.nonBlankString("model")
        for (key, value) in [("provider", provider), ("model", model)] where value.utf8.count > Self.maximumNameBytes {
            throw .contract(
                reader.path.appending(key: key),
                "must be at most \(Self.maximumNameBytes) bytes, got \(value.utf8.count)")
        }
        self.init(provider: provider, model: model)
    }

    /// The choice stored under `key`, or `fallback` when none is stored; a stored value that
    /// cannot be read also gives `fallback`, with the reason.
    public static func load(
        from preferences: any KeyValueStore, key: String, fallback: ChatModelChoice
    ) -> (choice: ChatModelChoice, problem: String?) {
        do {
            guard let bytes = try preferences.data(forKey: key) else { return (fallback, nil) }
            return (try ChatModelChoice(bytes: bytes), nil)
        } catch {
            return (fallback, "The saved model choice could not be read (\(error)); using \(fallback.model).")
        }
    }
}
