import Foundation
import Observation
import SybilCore
import SybilStore

/// The model of each ordinary chat (seed 003: model selection belongs to ordinary chats): the
/// server's list (`GET /v1/models`, read once, on first need), the rule that a chat only picks a
/// model the server lists when the list is known, and the choice itself, kept with the
/// conversation in the history store through ``ChatConversationModel/select(model:)`` so it
/// survives a relaunch and `sybil ask -c` asks it again. New chats start with ``defaultModel``
/// (the profile's, else the server's first). Quick Question keeps its own choice elsewhere
/// (``ChatModelChoice/quickQuestionKey``); nothing here reads or writes it.
@MainActor
@Observable
public final class ChatModelPicker {
    /// What a choice came to.
    public enum Outcome: Sendable, Hashable {
        /// The chat asks for this model from its next request on.
        case chosen(String)
        /// The chat already asks for this model.
        case unchanged(String)
        /// The server's list could not be read, so the name was taken as given; the reason.
        case unverified(String, reason: String)
        /// Not chosen: the sentence says why (an unknown name names a few listed ones).
        case refused(String)
    }

    /// How many listed models a refusal names.
    nonisolated public static let namedInRefusal = 5

    /// The server's models in its order; `nil` until they were listed.
    public private(set) var models: [String]?
    /// Why the list could not be read, when the last attempt failed.
    public private(set) var listProblem: String?
    /// The model a new chat asks for.
    public let defaultModel: String

    @ObservationIgnored private let list: @Sendable () async throws -> [String]
    @ObservationIgnored private var listing: Task<Void, Never>?

    /// A picker whose chats start with `defaultModel`; `list` reads the server's model ids in
    /// its order (the app passes ``ModelListClient``'s).
    public init(defaultModel: String, list: @escaping @Sendable () async throws -> [String]) {
        self.defaultModel = defaultModel
        self.list = list
    }

    /// A picker over `client`'s `GET /v1/models`.
    public convenience init(defaultModel: String, client: ModelListClient) {
        self.init(defaultModel: defaultModel) { try await client.models().models.map(\.id) }
    }

    /// Reads the server's list when it is not known yet (one read at a time; a failed read is
    /// tried again on the next call).
    public func loadModels() async {
        if models != nil { return }
        if let listing {
            await listing.value
            return
        }
        let list = list
        let task = Task { @MainActor [weak self] in
            do {
                let ids = try await list()
                self?.models = ids
                self?.listProblem = nil
            } catch {
                self?.listProblem = TerminalText.oneLine(String(describing: error))
            }
        }
        listing = task
        await task.value
        listing = nil
    }

    /// Picks `name` for `chat`: refused when blank, longer than
    /// ``ChatModelChoice/maximumNameBytes`` or holding control characters, and when the server's
    /// list is known and lacks it; taken as given when the list cannot be read.
    public func choose(_ name: String, for chat: ChatConversationModel) async -> Outcome {
        let name = name.trimmingCharacters(in: .whitespaces)
        if let problem = Self.nameProblem(name) { return .refused(problem) }
        if name == chat.model { return .unchanged(name) }
        await loadModels()
        if let models, !models.contains(name) {
            return .refused("The server does not list \(TerminalText.oneLine(name)); " + offers(models))
        }
        guard await chat.select(model: name) else {
            return .refused(chat.lastError ?? "The model choice could not be saved.")
        }
        if let listProblem, models == nil { return .unverified(name, reason: listProblem) }
        return .chosen(name)
    }

    /// Picks the model listed after `chat`'s (the first after the last, or when its model is not
    /// listed); refused when the list cannot be had or holds one model only.
    public func chooseNext(for chat: ChatConversationModel) async -> Outcome {
        await loadModels()
        guard let models, !models.isEmpty else {
            return .refused("The server's models could not be listed: \(listProblem ?? "it lists none").")
        }
        let next = models.firstIndex(of: chat.model).map { models[($0 + 1) % models.count] } ?? models[0]
        guard next != chat.model else { return .unchanged(next) }
        return await choose(next, for: chat)
    }

    /// The list as one line with `current` marked: `Models: a, [b], c`; or why it is not known.
    public func listing(current: String) -> String {
        guard let models else {
            return "This chat asks for \(current); the server's models could not be listed"
                + (listProblem.map { ": \($0)" } ?? ".")
        }
        guard !models.isEmpty else { return "This chat asks for \(current); the server lists no models." }
        let named = models.map { $0 == current ? "[\($0)]" : $0 }
        let shown = models.contains(current) ? named : named + ["[\(current)] (not listed)"]
        return "Models: " + shown.joined(separator: ", ") + " · /model NAME picks one for this chat"
    }

    /// The model a saved conversation asks for: the one kept with it, else (saved before models
    /// were kept) the one its last question asked; `nil` when it has neither or is not saved.
    public static func savedModel(ofConversation id: String, in store: any ChatHistoryStore) async throws
        -> String?
    {
        guard let record = try await store.conversation(id: id) else { return nil }
        if let model = record.model { return model }
        return try await store.messages(inConversation: id).last { $0.role == .user }?.model
    }

    /// Why `name` cannot be a model's name, if it cannot.
    nonisolated static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "Name a model: /model NAME (/model lists them)." }
        if name.utf8.count > ChatModelChoice.maximumNameBytes {
            return "A model's name is at most \(ChatModelChoice.maximumNameBytes) bytes."
        }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "A model's name has no control characters."
        }
        return nil
    }

    /// "it offers a, b, c and 4 more."
    private func offers(_ models: [String]) -> String {
        guard !models.isEmpty else { return "it lists no models." }
        let named = models.prefix(Self.namedInRefusal).map(TerminalText.oneLine).joined(separator: ", ")
        let more = models.count - min(models.count, Self.namedInRefusal)
        return "it offers \(named)" + (more > 0 ? " and \(more) more" : "") + "."
    }
}
