import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilServer
import SybilStore
import SybilTesting
import SybilWire
import Synchronization

/// One seed of the Agent room simulation: a phone (the room's crash-safe outbox on disk, its
/// sender and the room's HTTP client) talks to the reference server's handler through a
/// ``SimulatedNetwork``; the person queues messages, retries, resends all and relaunches while
/// the network drops requests, answers 401/500/503 from a proxy and loses answers after the
/// server acted. The room's replay (pages after the last merged cursor, as the stream replays
/// on reconnect) goes through the same network and feeds the sender, whose echoes confirm
/// entries. Every choice comes from one seeded source. Invariants are checked after every step
/// and, after a fault-free settle period, at the end.
@MainActor
final class AgentRoomSimulation {
    /// What one seed did.
    struct Summary: SimulationSummary {
        var steps = 0
        var queued = 0
        var relaunches = 0
        var replays = 0
        var requests = 0
        var faults: [NetworkFault: Int] = [:]

        static var ownCounts: [(name: String, count: WritableKeyPath<Self, Int>)] {
            [("queued", \.queued), ("relaunches", \.relaunches), ("replays", \.replays)]
        }
    }

    /// The phone as one launch builds it.
    private struct Phone {
        let outbox: AgentOutbox
        let sender: AgentOutboxSender
        let api: AgentRoomHTTPClient
    }

    static let baseURL = URL(string: "http://sim.invalid/api")!

    private let harness: SimulationHarness
    private let truth: AgentRoomHTTPClient
    private let directory: String
    private var phone: Phone?
    private var launches = 0
    /// What the person wrote, in order.
    private var written: [String] = []
    /// The newest cursor the phone's room merged (kept across launches, as the room's replay
    /// point is).
    private var mergedThrough: AgentCursor?
    private var summary = Summary()

    /// A simulation of `steps` steps for `seed`, its outbox in a fresh folder.
    init(seed: UInt64, steps: Int = 24) throws {
        harness = try SimulationHarness(
            seed: seed, steps: steps,
            wording: .init(seed: "agent room seed", network: "requests", filter: "AgentRoomSimulationTests"))
        truth = AgentRoomHTTPClient(
            base: try AgentAPIBase(Self.baseURL), http: DirectHTTPClient(app: harness.server),
            tokens: SimulationHarness.tokens(),
            random: SeededRandomSource(seed: seed))
        directory = try harness.makeFolder("agent")
    }

    /// Runs every step and the settle period; throws the first violation.
    func run() async throws -> Summary {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await harness.run(launch: launch, step: takeStep, check: checkSafety, settle: settle)
        await phone?.sender.stop()
        harness.count(into: &summary)
        return summary
    }

    // MARK: Steps

    private func takeStep() async throws {
        let phone = try current()
        switch harness.random.next(below: 100) {
        case 0..<40:
            let count = 1 + Int(harness.random.next(below: 3))
            for _ in 0..<count {
                let text = "«\(harness.seed)-\(written.count + 1)» Nachricht \(written.count + 1)"
                harness.note("queue \(written.count + 1)")
                do {
                    try await phone.outbox.enqueue(text: text)
                } catch {
                    throw harness.violation("queueing \(text) failed: \(error)")
                }
                written.append(text)
                summary.queued += 1
            }
        case 40..<52:
            harness.note("retry")
            if let failed = phone.outbox.entries.first(where: { $0.state == .failed && $0.canRetry }) {
                try? await phone.outbox.retry(failed.requestId)
            }
        case 52..<58:
            harness.note("resend all")
            _ = try? await phone.outbox.resendAll()
        case 58..<70:
            harness.note("relaunch")
            summary.relaunches += 1
            try await launch()
        case 70..<90:
            harness.note("replay")
            summary.replays += 1
            await replay(through: phone)
        default:
            harness.note("wait")
        }
        try await idle(phone)
    }

    /// Starts (or restarts) the phone from the outbox file; the sender starts sending.
    private func launch() async throws {
        if let phone { await phone.sender.stop() }
        launches += 1
        let outbox: AgentOutbox
        do {
            outbox = try await AgentOutbox.open(
                directory: directory, baseURL: Self.baseURL, ids: SequentialIDGenerator(prefix: "L\(launches)-"),
                now: { 1_800_000_000_000 })
        } catch {
            throw harness.violation("the outbox did not open: \(error)")
        }
        if let problem = outbox.loadProblems.first { throw harness.violation("the outbox lost data: \(problem)") }
        let api = AgentRoomHTTPClient(
            base: try AgentAPIBase(Self.baseURL), http: harness.network, tokens: SimulationHarness.tokens(),
            random: SeededRandomSource(seed: harness.seed &+ UInt64(launches)))
        let sender = AgentOutboxSender(outbox: outbox, api: api)
        phone = Phone(outbox: outbox, sender: sender, api: api)
        sender.start()
    }

    /// The room's replay after the last merged cursor, page by page through the faulty network,
    /// each message handed to the sender as the room model hands it; a failed page ends the
    /// replay (the next one starts from the same cursor).
    private func replay(through phone: Phone) async {
        while true {
            guard let page = try? await phone.api.messages(after: mergedThrough, before: nil, limit: 50) else { return }
            for message in page.messages {
                phone.sender.messageMerged(message)
                if mergedThrough.map({ message.cursor > $0 }) ?? true { mergedThrough = message.cursor }
            }
            if page.messages.count < 50 { return }
        }
    }

    /// Waits until the sender has nothing left it could do on its own: nothing in flight, nothing
    /// queued that it may send, no confirmation being saved.
    private func idle(_ phone: Phone) async throws {
        let sender = phone.sender
        let outbox = phone.outbox
        let quiet = await ConditionWait.until(limit: .seconds(30)) {
            guard sender.inFlight == nil, sender.pendingConfirmations == 0, outbox.pendingChanges == 0 else {
                return false
            }
            switch outbox.nextAction {
            case .send, .inFlight: return false
            case .idle, .held: return true
            }
        }
        if !quiet { throw harness.violation("the sender did not come to rest: \(outbox.nextAction)") }
    }

    // MARK: Invariants

    /// After every step: each message on the server at most once and in the order written,
    /// none overtaking an earlier one, everything written on the server or in the saved
    /// outbox, and no entry showing "sending" while the sender is at rest.
    private func checkSafety() async throws {
        let server = try await serverUserTexts()
        var seen = Set<String>()
        var lastIndex = -1
        for text in server {
            guard seen.insert(text).inserted else { throw harness.violation("\(text) is twice in the room") }
            guard let index = written.firstIndex(of: text) else {
                throw harness.violation("the room holds \(text), which the phone never wrote")
            }
            guard index > lastIndex else { throw harness.violation("the room holds \(text) out of order: \(server)") }
            lastIndex = index
        }
        let saved = savedOutbox()
        var missingBefore: String?
        for text in written {
            let onServer = seen.contains(text)
            if onServer, let missingBefore {
                throw harness.violation("\(text) reached the room before the earlier \(missingBefore)")
            }
            if !onServer {
                if missingBefore == nil { missingBefore = text }
                guard saved.contains(JSONWriter.quoted(text)) else {
                    throw harness.violation("\(text) is neither in the room nor in the saved outbox")
                }
            }
        }
        let sending = try current().outbox.entries.filter { $0.state == .sending }
        if !sending.isEmpty { throw harness.violation("\(sending.map(\.text)) still show as sending at rest") }
    }

    /// Faults off, every failed entry sent again, the room replayed: the server holds every
    /// message once and in order, and the phone's entries are all confirmed.
    private func settle() async throws {
        let phone = try current()
        for _ in 0..<3 {
            _ = try? await phone.outbox.resendAll()
            try await idle(phone)
            await replay(through: phone)
            try await idle(phone)
        }
        let server = try await serverUserTexts()
        if server != written { throw harness.violation("the room holds \(server), the phone wrote \(written)") }
        let unconfirmed = phone.outbox.entries.filter { $0.state != .confirmed }
        if !unconfirmed.isEmpty {
            throw harness.violation(
                "entries not confirmed after the replay: \(unconfirmed.map { "\($0.text) \($0.state)" })")
        }
    }

    // MARK: Support

    /// The person's messages in the room, oldest first.
    private func serverUserTexts() async throws -> [String] {
        let page = try await truth.messages(after: nil, before: nil, limit: 200)
        if page.hasMoreBefore { throw harness.violation("the room outgrew one page; the check would miss messages") }
        return page.messages.filter { $0.role == .user }.map(\.text)
    }

    /// Every file the outbox keeps, as text.
    private func savedOutbox() -> String {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return files.compactMap { FileManager.default.contents(atPath: directory + "/" + $0) }
            .map { String(decoding: $0, as: UTF8.self) }.joined()
    }

    private func current() throws -> Phone {
        guard let phone else { throw harness.violation("no phone") }
        return phone
    }
}
