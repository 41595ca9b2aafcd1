import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire

/// One seed of the workspace chat simulation: a phone (host, composer, outbox, sender and
/// desktop client) talks to the reference server's handler through a ``SimulatedNetwork``;
/// the user sends, retries, relaunches and waits while the network drops, refuses, loses
/// answers and holds requests. Every choice comes from one seeded source; the clocks are
/// manual and move only when the driver says. Invariants are checked after every step and,
/// after a fault-free settle period, at the end.
@MainActor
final class WorkspaceSimulation {
    /// What one seed did.
    struct Summary: SimulationSummary {
        var steps = 0
        var sends = 0
        var relaunches = 0
        var requests = 0
        var faults: [NetworkFault: Int] = [:]

        static var ownCounts: [(name: String, count: WritableKeyPath<Self, Int>)] {
            [("sends", \.sends), ("relaunches", \.relaunches)]
        }
    }

    /// The user rows the server holds, by operation id.
    struct ServerView {
        /// History, in its order.
        var history: [String]
        /// The live overlay, in its order.
        var overlay: [String]
        /// History and overlay in the order the server received them.
        var accepted: [String]
    }

    /// The phone as one launch builds it.
    private struct Phone {
        let outbox: WorkspaceOutbox
        let host: WorkspaceChatHost
        let sender: WorkspaceOutboxSender
        let composer: WorkspaceChatComposer
    }

    static let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-43")
    /// Messages per seed at most (each turn adds a handful of rows).
    static let maximumMessages = 9

    private let harness: SimulationHarness
    private let signal = GenerationSignal()
    private let hostClock = ManualClock()
    private let senderClock = ManualClock()
    private let truth: WorkspaceDesktopClient
    private let store = InMemoryKeyValueStore()
    private var phone: Phone?
    private var launches = 0
    /// What the user wrote, in order: the text and its operation id once known.
    private var written: [(text: String, operationId: String?)] = []
    private var lastEpoch: Int64 = .min
    private var summary = Summary()

    /// A simulation of `steps` steps for `seed`.
    init(seed: UInt64, steps: Int = 24) throws {
        harness = try SimulationHarness(
            seed: seed, steps: steps,
            wording: .init(seed: "seed", network: "submissions", filter: "SybilSimulationTests"),
            heldRoutes: ["POST /v1/workspaces/rpc run.codexChatSubmit"], signal: signal)
        truth = WorkspaceDesktopClient(
            baseURL: URL(string: "http://sim.invalid")!, http: DirectHTTPClient(app: harness.server),
            tokens: SimulationHarness.tokens())
    }

    /// Runs every step and the settle period; throws the first violation.
    func run() async throws -> Summary {
        try await harness.run(launch: launch, step: takeStep, check: checkSafety, settle: settle)
        harness.count(into: &summary)
        await phone?.composer.close()
        phone?.host.park()
        return summary
    }

    // MARK: Steps

    private func takeStep() async throws {
        var roll = harness.random.next(below: 100)
        // One newest window (200 rows) must hold the whole chat for the checks to see it all.
        if roll < 40 && written.count >= Self.maximumMessages { roll = 40 }
        switch roll {
        case 0..<40:
            let text = "«\(harness.seed)-\(written.count + 1)» message \(written.count + 1)"
            harness.note("send \(written.count + 1)")
            written.append((text, nil))
            summary.sends += 1
            let phone = try current()
            phone.composer.draft = text
            let outcome = await drive { await phone.composer.send() }
            if let index = written.lastIndex(where: { $0.text == text }) {
                written[index].operationId = try await operationId(of: text, on: phone)
            }
            if case .rejected(let reason)? = outcome {
                throw harness.violation("a new message was rejected for good: \(reason)")
            }
            if outcome == nil {
                throw harness.violation("the composer sent nothing: \(phone.composer.notice ?? "no notice")")
            }
        case 40..<50:
            harness.note("retry")
            let phone = try current()
            await drive { await phone.composer.retryUnaccepted() }
        case 50..<60:
            harness.note("relaunch")
            summary.relaunches += 1
            try await launch()
        case 60..<75:
            let seconds = Int64(1 + harness.random.next(below: 70))
            harness.note("wait \(seconds)s")
            hostClock.advance(by: .seconds(seconds))
        case 75..<88:
            let deliver = harness.random.next(below: 2) == 0
            harness.note(deliver ? "late delivery" : "lost request")
            await harness.network.releaseOldestHeld(deliver: deliver)
        default:
            harness.note("refresh")
            try current().host.handle(.explicitRefresh)
        }
        try checkNothingStuck()
    }

    /// Starts (or restarts) the phone from what the store holds, and restores the outbox.
    private func launch() async throws {
        if let phone {
            await phone.composer.close()
            phone.host.park()
        }
        launches += 1
        let ids = SequentialIDGenerator(prefix: "L\(launches)")
        let outbox = try WorkspaceOutbox(store: store)
        let desktop = WorkspaceDesktopClient(
            baseURL: URL(string: "http://sim.invalid")!, http: harness.network, tokens: SimulationHarness.tokens())
        let host = WorkspaceChatHost(
            key: Self.chat, rpc: desktop, clock: hostClock,
            random: SeededRandomSource(seed: harness.seed &+ UInt64(launches)))
        let sender = WorkspaceOutboxSender(
            outbox: outbox, rpc: desktop, clock: senderClock, ids: ids, now: { 1_800_000_000_000 })
        let composer = WorkspaceChatComposer(
            host: host, outbox: outbox, sender: sender, ids: ids, now: { 1_800_000_000_000 })
        let phone = Phone(outbox: outbox, host: host, sender: sender, composer: composer)
        self.phone = phone
        lastEpoch = .min
        host.activate()
        await drive { await composer.restore() }
    }

    /// Runs `action` to its end: whenever the network holds a request its client waits for,
    /// the sender's clock passes the receipt timeout so that the client gives up, as it would.
    @discardableResult
    private func drive<T: Sendable>(_ action: @escaping @MainActor () async -> T) async -> T {
        let signal = signal
        let finished = Locked(false)
        let task = Task { @MainActor in
            let result = await action()
            finished.withLock { $0 = true }
            signal.fire()
            return result
        }
        while true {
            let generation = signal.generation
            if finished.withLock({ $0 }) { return await task.value }
            if harness.network.waitingHeld > 0 {
                // The receipt wait is the sender's only sleeper: once it sleeps, its timeout
                // passes. Until then, wait for it or for anything else that changes (the held
                // request may be answered or given up first).
                if senderClock.sleeperCount >= 1 {
                    senderClock.advance(by: WorkspaceOutboxSender.receiptTimeout)
                    continue
                }
                let senderClock = senderClock
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await senderClock.waitForSleepers(count: 1) }
                    group.addTask { await signal.wait(after: generation) }
                    await group.next()
                    group.cancelAll()
                }
                continue
            }
            await signal.wait(after: generation)
        }
    }

    // MARK: Invariants

    /// Safety, after every step: each message on the server at most once and in the order
    /// written, none overtaking an earlier one, everything written on the server or saved,
    /// and the overlay epoch of the host never going back.
    private func checkSafety() async throws {
        let server = try await serverUserOperations()
        try checkOrder(server.history, where: "history")
        try checkOrder(server.overlay, where: "the live overlay")
        try checkOrder(server.accepted, where: "the order the server received them", ordered: true)
        try checkServerOrder(server)
        let delivered = Set(server.history + server.overlay)
        let saved = String(decoding: try store.data(forKey: WorkspaceOutbox.storageKey) ?? [], as: UTF8.self)
        var missingBefore: String?
        for message in written {
            let onServer = message.operationId.map { delivered.contains($0) } ?? false
            if onServer, let missingBefore {
                throw harness.violation("\(message.text) reached the server before the earlier \(missingBefore)")
            }
            if !onServer {
                if missingBefore == nil { missingBefore = message.text }
                guard saved.contains(jsonEscaped(message.text)) else {
                    throw harness.violation("\(message.text) is neither on the server nor in the saved outbox")
                }
            }
        }
        let epoch = try current().host.timeline.overlay.settlementEpoch
        if epoch < lastEpoch { throw harness.violation("the overlay epoch went back from \(lastEpoch) to \(epoch)") }
        lastEpoch = epoch
    }

    /// No bubble says "sending" while nothing is being sent (the driver waits for each action).
    private func checkNothingStuck() throws {
        let stuck = try current().composer.deliveries.filter { $0.state == .pending }
        if !stuck.isEmpty {
            throw harness.violation("\(stuck.map(\.text)) still show as sending after every send ended")
        }
    }

    /// Each operation once, and (when `ordered`) in the order written.
    private func checkOrder(_ operations: [String], where place: String, ordered: Bool = false) throws {
        var seen = Set<String>()
        var lastIndex = -1
        for operation in operations {
            guard seen.insert(operation).inserted else { throw harness.violation("\(operation) is twice in \(place)") }
            guard let index = written.firstIndex(where: { $0.operationId == operation }) else {
                throw harness.violation("\(place) holds \(operation), which the phone never wrote")
            }
            guard index > lastIndex || !ordered else {
                throw harness.violation("\(place) holds \(operation) out of order: \(operations)")
            }
            lastIndex = index
        }
    }

    /// The server runs turns in the order it accepted them: its history is its acceptance
    /// order (a turn that arrived between one run ending and the next queued one starting
    /// once overtook the queue).
    private func checkServerOrder(_ server: ServerView) throws {
        let settled = server.accepted.filter { Set(server.history).contains($0) }
        if settled != server.history {
            throw harness.violation(
                "the server's history \(server.history) is not its acceptance order \(server.accepted)")
        }
    }

    /// Faults off, held requests delivered, everything retried and settled: the server holds
    /// every message once and in order, and the phone shows exactly the server's history with
    /// nothing pending.
    private func settle() async throws {
        while await harness.network.releaseOldestHeld(deliver: true) {}
        let phone = try current()
        await drive { await phone.composer.retryUnaccepted() }
        try checkNothingStuck()
        // The server's runs end on their own tasks; `quiescent()` returns once none is left.
        await harness.server.quiescent()
        let load = try? await truth.codexChatLoad(Self.chat)
        if load?.liveOverlay.blocks.isEmpty != true { throw harness.violation("the server's runs did not end") }
        let before = phone.host.appliedLoads
        phone.host.handle(.explicitRefresh)
        let settled = await ConditionWait.until {
            phone.host.appliedLoads > before && !phone.host.isLoading && phone.composer.deliveries.isEmpty
                && phone.host.timeline.pending.isEmpty
        }
        let server = try await serverUserOperations()
        let expected = written.compactMap(\.operationId)
        try checkServerOrder(server)
        if server.accepted != expected || Set(server.history) != Set(expected) {
            throw harness.violation(
                "the server accepted \(server.accepted) (history \(server.history)), the phone wrote \(expected)")
        }
        if written.contains(where: { $0.operationId == nil }) {
            throw harness.violation("a written message has no operation id")
        }
        let shown = phone.host.timeline.window.filter { $0.origin == .canonical && $0.type == .user }
            .compactMap(\.operationId)
        if shown != server.history {
            throw harness.violation("the phone shows \(shown), the server's history is \(server.history)")
        }
        if !settled {
            throw harness.violation(
                "the phone did not settle: deliveries \(phone.composer.deliveries.map(\.text)), pending \(phone.host.timeline.pending.map(\.operationId))"
            )
        }
        let left = await phone.outbox.pendingEntries(in: Self.chat)
        if !left.isEmpty { throw harness.violation("the outbox still holds \(left.map(\.operationId))") }
    }

    // MARK: Support

    /// The operation id the phone gave `text`: from its bubble, or, once history confirmed it
    /// and the bubble left (a fast server can settle it before the send returns), from the
    /// server's rows, where settled user rows keep their operation id.
    private func operationId(of text: String, on phone: Phone) async throws -> String? {
        if let delivery = phone.composer.deliveries.first(where: { $0.text == text }) { return delivery.id }
        let load = try await truth.codexChatLoad(Self.chat)
        let rows = load.timeline.filter { $0.type == .user } + load.liveOverlay.blocks.filter { $0.type == .user }
        return rows.last { $0.text == text }?.operationId
    }

    private func serverUserOperations() async throws -> ServerView {
        let load = try await truth.codexChatLoad(Self.chat)
        if load.hasOlderEntries { throw harness.violation("the chat outgrew one window; the check would miss rows") }
        let history = load.timeline.filter { $0.type == .user }
        let overlay = load.liveOverlay.blocks.filter { $0.type == .user }
        let held = Set(history.compactMap(\.operationId) + overlay.compactMap(\.operationId))
        var accepted: [String] = []
        for operation in harness.network.delivered where held.contains(operation) && !accepted.contains(operation) {
            accepted.append(operation)
        }
        return ServerView(
            history: history.compactMap(\.operationId), overlay: overlay.compactMap(\.operationId),
            accepted: accepted)
    }

    private func current() throws -> Phone {
        guard let phone else { throw harness.violation("no phone") }
        return phone
    }

    private func jsonEscaped(_ text: String) -> String {
        let quoted = JSONWriter.quoted(text)
        return String(quoted.dropFirst().dropLast())
    }
}

/// Renews the session with the same token (the simulated 401 came from a proxy).
struct SameTokenRefresher: TokenRefresher {
    func refreshToken(expired: String?) async throws -> String { SimulationHarness.token }
}

/// The server's handler without faults: the driver's view of the server's truth.
struct DirectHTTPClient: HTTPClient {
    let app: SybilServerApp

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        var target = request.url.path
        if let query = request.url.query { target += "?" + query }
        let response = await app.handle(
            HTTPServerRequest(
                method: request.method, target: target,
                headers: request.headers.fields.map { ($0.name, $0.value) }, body: request.body ?? []))
        let bytes = response.bodyBytes ?? []
        return HTTPStreamingResponse(
            head: HTTPResponseHead(status: response.status, headers: response.headers),
            body: AsyncThrowingStream { continuation in
                continuation.yield(bytes)
                continuation.finish()
            })
    }
}
