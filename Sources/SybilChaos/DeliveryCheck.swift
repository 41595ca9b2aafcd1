import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTimeline
import SybilWire

/// The kill -9 delivery test's verdict: per surface, the plan's texts in each surface's truth
/// compared with the plan. The Agent room's and the workspace chat's truth is the server's
/// (the room's history, the chat's history pages and live overlay); the chats' is the client's
/// history (the server keeps none). The driver's stores must be intact too: they open without
/// problems and hold nothing acknowledged but unconfirmed, nothing failed, nothing queued.
@MainActor
public struct DeliveryCheck {
    /// What the check found.
    public struct Report: Sendable, Hashable {
        /// Messages the plan has.
        public var messages = 0
        /// Texts seen more than once in one conversation.
        public var duplicates = 0
        /// Texts of the plan not seen.
        public var missing = 0
        /// Texts seen before one with a lower index.
        public var outOfOrder = 0
        /// Problems with the driver's stores, one sentence each.
        public var storeProblems: [String] = []
        /// Per surface: how many texts its truth holds.
        public var seen: [String: Int] = [:]
        /// The first few problems, one sentence each.
        public var examples: [String] = []

        /// Whether everything held.
        public var passed: Bool { duplicates == 0 && missing == 0 && outOfOrder == 0 && storeProblems.isEmpty }
    }

    private let connection: ChaosConnection
    private let directory: String
    private let plan: DeliveryPlan

    /// A check of the driver's `directory` and the server at `connection` against `plan`.
    public init(connection: ChaosConnection, directory: String, plan: DeliveryPlan) {
        self.connection = connection
        self.directory = directory
        self.plan = plan
    }

    /// Runs the check.
    public func run() async throws -> Report {
        var report = Report(messages: plan.count)
        let agentTexts = try await agentHistory()
        compare(agentTexts, with: .agent, into: &report)
        let chat = try await connection.workspaceChat()
        compare(try await workspaceHistory(chat), with: .workspace, into: &report)
        let history = try SQLiteChatHistory(path: directory + "/chats.sqlite")
        var chatTexts: [String] = []
        for conversation in try await history.recentConversations(limit: 1_000).reversed() {
            let messages = try await history.messages(inConversation: conversation.id)
            for (position, message) in messages.enumerated() where message.role == .user {
                chatTexts.append(message.text)
                let reply = messages.dropFirst(position + 1).first
                switch reply.map({ ($0.role, $0.state) }) {
                case (.assistant, .complete)?, (.assistant, .failed)?: break
                default:
                    report.storeProblems.append("the chat question \(message.text) has no reply or failed reply")
                }
            }
        }
        compare(chatTexts, with: .chats, into: &report)
        try await checkOutboxes(chat, into: &report)
        return report
    }

    /// The user messages' texts of the Agent room's whole history, oldest first.
    private func agentHistory() async throws -> [String] {
        let api = try connection.agentAPI()
        var messages: [AgentRoomMessage] = []
        var page = try await api.messages(after: nil, before: nil, limit: 200)
        messages = page.messages
        while page.hasMoreBefore, let first = page.messages.first {
            page = try await api.messages(after: nil, before: first.cursor, limit: 200)
            messages = page.messages + messages
        }
        return messages.filter { $0.role == .user }.map(\.text)
    }

    /// The user rows' texts of the workspace chat's whole history and live overlay, oldest first.
    private func workspaceHistory(_ chat: WorkspaceChatKey) async throws -> [String] {
        let desktop = connection.desktop()
        let envelope = try await desktop.codexChatLoad(chat)
        var rows = envelope.timeline
        var older = envelope.hasOlderEntries ? envelope.oldestCursor : nil
        while let cursor = older {
            let page = try await desktop.codexChatLoadPageBefore(chat, cursor: cursor)
            rows = page.timeline + rows
            older = page.hasOlderEntries ? page.oldestCursor : nil
        }
        let live = envelope.liveOverlay.blocks.filter { block in !rows.contains { $0.id == block.id } }
        return (rows + live).filter { $0.type == .user }.map(\.text)
    }

    /// Counts duplicates, missing and out-of-order texts of `surface` in `texts`.
    private func compare(_ texts: [String], with surface: DeliveryPlan.Surface, into report: inout Report) {
        Self.compare(texts, with: surface, plan: plan, into: &report)
    }

    /// Counts duplicates, missing and out-of-order texts of `surface` in `texts` (one
    /// conversation's texts, oldest first; other surfaces' and foreign texts are skipped).
    static func compare(
        _ texts: [String], with surface: DeliveryPlan.Surface, plan: DeliveryPlan, into report: inout Report
    ) {
        let expected = plan.indices(of: surface)
        var seen: [Int: Int] = [:]
        var highest = -1
        var counted = 0
        for text in texts {
            guard let index = plan.index(of: text), plan.surface(of: index) == surface else { continue }
            counted += 1
            seen[index, default: 0] += 1
            if seen[index]! > 1 {
                report.duplicates += 1
                note("\(surface): \(text) seen \(seen[index]!) times", &report)
            } else if index < highest {
                report.outOfOrder += 1
                note("\(surface): \(text) after \(plan.text(of: highest))", &report)
            }
            highest = max(highest, index)
        }
        for index in expected where seen[index] == nil {
            report.missing += 1
            note("\(surface): \(plan.text(of: index)) missing", &report)
        }
        report.seen[surface.description] = counted
    }

    /// The driver's outboxes must open cleanly and hold nothing undelivered.
    private func checkOutboxes(_ chat: WorkspaceChatKey, into report: inout Report) async throws {
        let agent = try await AgentOutbox.open(
            directory: directory + "/agent", baseURL: connection.baseURL, ids: RandomUUIDGenerator(), now: { 0 })
        report.storeProblems += agent.loadProblems.map { "Agent outbox: \($0)" }
        let agentTexts = agent.entries.map(\.text)
        for entry in agent.entries where entry.state != .confirmed {
            report.storeProblems.append("Agent outbox: \(entry.text) is \(entry.state.rawValue), not confirmed")
        }
        if Set(agentTexts).count != agentTexts.count {
            report.storeProblems.append("Agent outbox: a text is queued twice")
        }
        let workspace = try WorkspaceOutbox(store: try FileKeyValueStore(directory: directory + "/workspace"))
        report.storeProblems += await workspace.loadProblems.map { "workspace outbox: \($0)" }
        for entry in await workspace.pendingEntries(in: chat) {
            report.storeProblems.append(
                "workspace outbox: \(entry.mutation.text) still pending (accepted: \(entry.acceptedByDesktop))")
        }
    }

    private static func note(_ problem: String, _ report: inout Report) {
        if report.examples.count < 10 { report.examples.append(problem) }
    }
}
