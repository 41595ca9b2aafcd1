import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilStore
import SybilTesting

/// One seed of the chat simulation: a phone (a conversation model over the chat history in a
/// SQLite file and the streaming service with its resume from the last event id) asks the
/// reference server's scripted agent through a ``SimulatedNetwork`` that drops requests,
/// answers 401/500/503 from a proxy, loses answers after the server acted and cuts event
/// streams part way; the person asks, retries and relaunches (the history reopened from the
/// file). The service's waits (resume backoff) run on a manual clock that moves only when it
/// waits. Invariants are checked after every step and, after a fault-free settle, at the end.
@MainActor
final class ChatSimulation {
    /// What one seed did.
    struct Summary: SimulationSummary {
        var steps = 0
        var questions = 0
        var retries = 0
        var relaunches = 0
        var completeReplies = 0
        var requests = 0
        var faults: [NetworkFault: Int] = [:]

        static var ownCounts: [(name: String, count: WritableKeyPath<Self, Int>)] {
            [
                ("questions", \.questions), ("retries", \.retries), ("relaunches", \.relaunches),
                ("complete replies", \.completeReplies),
            ]
        }
    }

    static let model = "sybil-scripted"
    static let baseURL = URL(string: "http://sim.invalid")!

    private let harness: SimulationHarness
    private let truth: DirectHTTPClient
    private let clock = ManualClock()
    private let directory: String
    private var store: SQLiteChatHistory?
    private var model: ChatConversationModel?
    private var conversationId: String?
    private var launches = 0
    /// The questions the person asked, in order.
    private var written: [String] = []
    private var expected: [String: String] = [:]
    private var summary = Summary()

    /// A simulation of `steps` steps for `seed`, its history in a fresh folder.
    init(seed: UInt64, steps: Int = 16) throws {
        harness = try SimulationHarness(
            seed: seed, steps: steps,
            wording: .init(seed: "chat seed", network: "requests", filter: "ChatSimulationTests"))
        truth = DirectHTTPClient(app: harness.server)
        directory = try harness.makeFolder("chat")
    }

    /// Runs every step and the settle period; throws the first violation.
    func run() async throws -> Summary {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await harness.run(launch: launch, step: takeStep, check: checkSafety, settle: settle)
        harness.count(into: &summary)
        summary.completeReplies = try await history().filter { $0.role == .assistant && $0.state == .complete }.count
        return summary
    }

    // MARK: Steps

    private func takeStep() async throws {
        let model = try current()
        switch harness.random.next(below: 100) {
        case 0..<55:
            let text = "Frage \(written.count + 1) zu «\(harness.seed)»"
            harness.note("ask \(written.count + 1)")
            let sent = await drive { await model.send(text) }
            if !sent {
                // Only a question whose reply failed may block the next: retry first.
                guard model.canRetry else {
                    throw harness.violation("the model refused \(text): \(model.lastError ?? "")")
                }
                harness.note("(retry first)")
                summary.retries += 1
                await drive { await model.retry() }
                return
            }
            written.append(text)
            summary.questions += 1
            if conversationId == nil { conversationId = model.conversationId }
        case 55..<75:
            harness.note("retry")
            if model.canRetry {
                summary.retries += 1
                await drive { await model.retry() }
            }
        case 75..<90:
            harness.note("relaunch")
            summary.relaunches += 1
            try await launch()
        default:
            harness.note("wait")
            clock.advance(by: .seconds(Int64(1 + harness.random.next(below: 30))))
        }
    }

    /// Opens (or reopens) the history file and the conversation the person was in.
    private func launch() async throws {
        launches += 1
        let store = try SQLiteChatHistory(path: directory + "/chats.sqlite")
        self.store = store
        let streaming = ChatStreamingService(
            baseURL: Self.baseURL, http: harness.network, clock: clock, tokens: SimulationHarness.tokens(), gate: nil,
            model: Self.model,
            stallTimeout: .seconds(3_600))
        let model = ChatConversationModel(
            streaming: streaming, store: store, model: Self.model, now: { 1_800_000_000_000 },
            ids: SequentialIDGenerator(prefix: "L\(launches)-"), warmUp: nil, conversationId: conversationId)
        self.model = model
        await model.enter()
    }

    /// Runs `action` while the manual clock moves 2 s each time the service starts a wait (a
    /// resume's backoff), so every wait passes as it would.
    private func drive<T: Sendable>(_ action: @escaping @MainActor () async -> T) async -> T {
        let clock = clock
        let mover = Task { await clock.drive(step: .seconds(2)) }
        let result = await action()
        mover.cancel()
        return result
    }

    // MARK: Invariants

    /// After every step: every question the person asked is in the history once and in order,
    /// nothing shows as typing, and every complete reply is exactly the agent's reply to its
    /// question (a resumed stream doubled or lost nothing).
    private func checkSafety() async throws {
        let model = try current()
        if model.isTyping { throw harness.violation("the model still shows typing after the step ended") }
        let messages = try await history()
        let questions = messages.filter { $0.role == .user }.map(\.text)
        if questions != written {
            throw harness.violation("the history holds \(questions), the person asked \(written)")
        }
        var question: String?
        for message in messages {
            switch message.role {
            case .user:
                question = message.text
            case .assistant:
                if message.state == .streaming {
                    throw harness.violation("a reply is saved as still streaming at rest")
                }
                guard message.state == .complete, let question else { continue }
                let reply = try await expectedReply(to: question)
                if message.text != reply {
                    throw harness.violation(
                        "the reply to \(question) is \(message.text.debugDescription), not \(reply.debugDescription)")
                }
            case .system:
                continue
            }
        }
        if model.messages.map(\.id) != messages.map(\.id) {
            throw harness.violation("the model shows other messages than the history holds")
        }
    }

    /// Faults off, the last question retried until answered, relaunched once more: every
    /// question has its complete reply after it, and what the model shows is the history.
    private func settle() async throws {
        try await launch()
        let model = try current()
        if model.canRetry { await drive { await model.retry() } }
        try await checkSafety()
        let messages = try await history()
        guard let last = messages.last else { return }
        if last.role != .assistant || last.state != .complete {
            throw harness.violation("the last question has no complete reply after the settle: \(last.state)")
        }
    }

    // MARK: Support

    private func history() async throws -> [ChatMessageRecord] {
        guard let id = conversationId, let store else { return [] }
        return try await store.messages(inConversation: id)
    }

    /// The agent's whole reply to `question` alone, asked of the server without the network.
    private func expectedReply(to question: String) async throws -> String {
        if let known = expected[question] { return known }
        let body = JSONWriter().bytes(from: [
            "model": .string(Self.model), "messages": [["role": "user", "content": .string(question)]],
        ])
        var headers = HTTPHeaders()
        headers.set("Authorization", "Bearer \(SimulationHarness.token)")
        headers.set("Content-Type", "application/json")
        let response = try await truth.send(
            HTTPRequest(
                method: "POST", url: Self.baseURL.appendingPathComponent("v1/chat/completions"), headers: headers,
                body: body))
        let bytes = try await response.collect()
        guard case .object(let object)? = try? JSONReader().parse(bytes), case .array(let choices)? = object["choices"],
            case .object(let choice)? = choices.first, case .object(let message)? = choice["message"],
            case .string(let content)? = message["content"]
        else {
            throw harness.violation(
                "the server's whole reply could not be read: \(String(decoding: bytes, as: UTF8.self))")
        }
        expected[question] = content
        return content
    }

    private func current() throws -> ChatConversationModel {
        guard let model else { throw harness.violation("no model") }
        return model
    }
}
