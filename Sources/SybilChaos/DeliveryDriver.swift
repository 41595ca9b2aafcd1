import Foundation
import SybilClient
import SybilCore
import SybilWire

/// The kill -9 delivery test's driver: queues the plan's messages across the three surfaces
/// through the real client outboxes and stores on disk, and survives a kill at any point.
///
/// Each life reopens the stores in ``directory``, takes up the numbering from what was saved
/// (the progress file, raised to the highest index any store holds, since a kill may fall
/// between a store's save and the progress's), re-queues nothing, lets each surface resend what
/// an earlier life left (Agent Resend all, the workspace outbox's unaccepted entries, the chat's
/// interrupted reply), queues the rest in order, and returns once everything is queued and
/// delivered: every Agent entry confirmed by its echo, the workspace outbox empty, the chat's
/// last question answered.
@MainActor
public final class DeliveryDriver {
    /// Where the driver keeps its stores and progress.
    public let directory: String
    private let connection: ChaosConnection
    private let plan: DeliveryPlan
    private let log: (String) -> Void

    /// A driver for `plan` against `connection`, keeping its state in `directory`; `log` gets
    /// one line per step worth knowing.
    public init(
        connection: ChaosConnection, directory: String, plan: DeliveryPlan, log: @escaping (String) -> Void
    ) {
        self.connection = connection
        self.directory = directory
        self.plan = plan
        self.log = log
    }

    var progressPath: String { directory + "/progress" }

    /// Runs one life: returns when all is queued and delivered, or throws what stopped it
    /// (waiting at most `limit` for the deliveries once everything is queued).
    public func run(limit: Duration) async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var progress = try DriverProgress.load(progressPath)
        progress.launches += 1
        try progress.save(progressPath)
        let chat = try await retrying("list the workspace chats") { try await self.connection.workspaceChat() }
        let agent = try await AgentSurfaceDriver(connection: connection, directory: directory + "/agent", plan: plan)
        let workspace = try WorkspaceSurfaceDriver(
            connection: connection, chat: chat, directory: directory + "/workspace", plan: plan)
        if let problem = await workspace.loadProblems.first {
            throw ChaosError("the workspace outbox lost data: \(problem)")
        }
        let chats = try ChatSurfaceDriver(connection: connection, path: directory + "/chats.sqlite", plan: plan)
        // The stores win over the progress: a kill may fall between a save and the progress's.
        for index in agent.queuedIndices { progress.raise(.agent, to: index) }
        for index in await workspace.queuedIndices { progress.raise(.workspace, to: index) }
        for index in try await chats.queuedIndices { progress.raise(.chats, to: index) }
        try progress.save(progressPath)
        let queued = progress.queuedThrough
        log("launch \(progress.launches): queued through \(queued.map { "\($0.key)=\($0.value)" }.sorted())")

        await agent.start()
        await workspace.start()
        try await chats.start()
        for index in 0..<plan.count {
            let surface = plan.surface(of: index)
            if index <= progress.queuedThrough[surface] ?? -1 { continue }
            switch surface {
            case .agent:
                try await agent.queue(index)
                progress.raise(.agent, to: index)
                try progress.save(progressPath)
            case .workspace:
                try await workspace.queue(index) {
                    progress.raise(.workspace, to: index)
                    try progress.save(progressPath)
                }
            case .chats:
                try await chats.queue(index)
                progress.raise(.chats, to: index)
                try progress.save(progressPath)
            }
            // One line per message: the supervisor places its kills by these.
            log("queued \(plan.text(of: index))")
            if index % 10 == 0 {
                await agent.pump()
                await workspace.pump()
            }
        }
        log("all \(plan.count) queued; waiting for deliveries")
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        var lastReport = clock.now
        while true {
            let settled = agent.isSettled
            let workspaceSettled = await workspace.isSettled
            if settled && workspaceSettled && chats.isSettled { break }
            if clock.now >= deadline {
                throw ChaosError(
                    "not delivered within \(limit): \(agent.unsettledSummary); \(await workspace.unsettledSummary); \(chats.unsettledSummary)"
                )
            }
            if clock.now - lastReport > .seconds(2) {
                lastReport = clock.now
                log("\(agent.unsettledSummary); \(await workspace.unsettledSummary); \(chats.unsettledSummary)")
            }
            await agent.pump()
            await workspace.pump()
            await chats.pump()
            try await clock.sleep(for: .milliseconds(100))
        }
        await agent.stop()
        await workspace.stop()
        log("all \(plan.count) queued and delivered")
    }

    /// `work` again every 200 ms until it succeeds (the server may be restarting), at most 60 s.
    private func retrying<T>(_ what: String, _ work: () async throws -> T) async throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(60))
        while true {
            do {
                return try await work()
            } catch {
                guard clock.now < deadline else { throw ChaosError("could not \(what): \(error)") }
                try await clock.sleep(for: .milliseconds(200))
            }
        }
    }
}
