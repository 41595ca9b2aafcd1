import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilStore

/// `sybil agent send|tail|retry|resend-all|discard|draft|download|preview`: the Agent room (seed 003) from the
/// command line, through the same room model, attachment draft, outbox and sender the apps
/// use. The outbox and draft live under `$XDG_DATA_HOME/sybil/client`, scoped to the server.
enum AgentCommand {
    static let name = "sybil agent"

    /// The subcommands, one line each; each runs only against a server that offers the room.
    static let table = CommandTable(
        group: spec,
        entries: [
            .gated("send", .agentRoom, AgentSendCommand.spec, AgentSendCommand.run),
            .gated("tail", .agentRoom, AgentTailCommand.spec, AgentTailCommand.run),
            .gated("retry", .agentRoom, AgentRetryCommand.retrySpec) { arguments, io throws(UsageError) in
                try await AgentRetryCommand.run(arguments, io: io, all: false)
            },
            .gated("resend-all", .agentRoom, AgentRetryCommand.resendAllSpec) { arguments, io throws(UsageError) in
                try await AgentRetryCommand.run(arguments, io: io, all: true)
            },
            .gated("download", .agentRoom, AgentDownloadCommand.spec, AgentDownloadCommand.run),
            .gated("preview", .agentRoom, AgentPreviewCommand.spec, AgentPreviewCommand.run),
            .gated("draft", .agentRoom, AgentDraftCommand.spec, AgentDraftCommand.run),
            .gated("discard", .agentRoom, AgentDiscardCommand.spec, AgentDiscardCommand.run),
        ])

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await table.run(arguments, io: io)
    }

    /// The room's parts over one connection.
    @MainActor
    struct Session {
        var composer: AgentRoomComposer
        var api: AgentRoomHTTPClient
        /// A directory to remove when the session ends (`--in-memory`).
        var scratch: String?

        /// Stops the room, the sender and the draft's work, then removes the scratch directory.
        func close() async {
            await composer.close()
            if let scratch { try? FileManager.default.removeItem(atPath: scratch) }
        }
    }

    /// Opens the room's session, runs `body` with it and closes it; a session that cannot be
    /// opened has already said why, and its exit code is returned.
    @MainActor
    static func withSession(
        _ common: ClientCommand.Common, connection: ServerTarget.Connection, command: String, io: CommandIO,
        _ body: (Session) async -> ExitCode
    ) async -> ExitCode {
        let session: Session
        switch await open(common, connection: connection, command: command, io: io) {
        case .success(let opened): session = opened
        case .failure(let error): return error.code
        }
        let status = await body(session)
        await session.close()
        return status
    }

    /// Opens the room's parts: the outbox and draft of this server (the embedded one keeps one
    /// scope whatever its port), the room model and the sender. Says why on standard error and
    /// returns the exit status when something cannot be opened.
    @MainActor
    static func open(
        _ common: ClientCommand.Common, connection: ServerTarget.Connection, command: String, io: CommandIO
    ) async -> Result<Session, ExitCodeError> {
        guard let base = connection.apiBase(command: command, io: io) else {
            return .failure(ExitCodeError(.usage))
        }
        let scope = connection.storageScope
        var scratch: String?
        let directory: String
        if common.inMemory {
            // A fresh scratch directory (live randomness only names it), removed at the end.
            let scratchName = UUID().uuidString  // live default: a fresh scratch name
            let path = NSTemporaryDirectory() + "sybil-agent-\(scratchName)"
            scratch = path
            directory = path
        } else {
            directory = XDGDirectories(environment: io.environment).sybilData + "/client/agent"
        }
        // The live defaults: a command is where real time and randomness enter the engine.
        let ids = RandomUUIDGenerator(source: SystemRandomSource())
        let now = WallClock.milliseconds
        let outbox: AgentOutbox
        do {
            outbox = try await AgentOutbox.open(directory: directory, baseURL: scope, ids: ids, now: now)
        } catch {
            io.writeError("\(command): the outbox cannot be opened, so nothing was sent: \(error)\n")
            return .failure(ExitCodeError(.noInput))
        }
        for problem in outbox.loadProblems { io.writeError("\(command): \(problem)\n") }
        let random = SystemRandomSource()
        let api = AgentRoomHTTPClient(
            base: base, http: connection.http(redirects: .deliver), tokens: connection.tokens, random: random)
        let room = AgentRoomModel(
            base: base, tokens: connection.tokens, http: connection.http(redirects: .deliver), clock: ContinuousClock(),
            random: random,
            timeZone: .autoupdatingCurrent)
        let sender = AgentOutboxSender(outbox: outbox, api: api, removesConfirmed: true)
        let draft = AgentAttachmentDraft(
            api: api, storage: AgentAttachmentFileStore(directory: directory, baseURL: scope), ids: ids)
        let undelivered = undelivered(in: directory, scope: outbox.scope)
        if let problem = undelivered.storeProblem { io.writeError(notKeptLine(problem, command: command)) }
        let composer = AgentRoomComposer(
            room: room, outbox: outbox, sender: sender, draft: draft, undelivered: undelivered)
        return .success(Session(composer: composer, api: api, scratch: scratch))
    }

    /// The room's texts not delivered and not in the composer, kept beside the outbox in
    /// `directory` (SPEC §2); when that store cannot be opened, a list in memory whose
    /// `storeProblem` says so (the app's status line names it, ``open(_:connection:command:io:)``
    /// says it on standard error), never a silent one.
    @MainActor
    static func undelivered(in directory: String, scope: AgentOutboxScope) -> AgentUndeliveredMessages {
        .opening(store: { try FileKeyValueStore(directory: directory) }, persistence: { .agentRoom(scope, in: $0) })
    }

    /// The line a command without a status line writes on standard error when its list of kept
    /// texts lives in memory only (`problem`, the list's `storeProblem`).
    static func notKeptLine(_ problem: String, command: String) -> String {
        "\(command): \(TerminalText.safe(problem)); a text this run cannot deliver will not be kept past this run (make the data folder writable and run again)\n"
    }

    /// Waits until `condition` holds, at most `limit`; returns whether it held.
    @MainActor
    static func wait(limit: Duration, _ condition: @MainActor () -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        while !condition() {
            guard clock.now < deadline else { return false }
            do { try await clock.sleep(for: .milliseconds(20)) } catch { return condition() }
        }
        return true
    }

    /// Waits until every entry in `requestIds` left the outbox (confirmed by its echo) or one
    /// failed; reports on standard error and returns the exit status.
    @MainActor
    static func awaitEchoes(
        of requestIds: [String], in session: Session, limit: Duration, command: String, io: CommandIO
    ) async -> ExitCode {
        let outbox = session.composer.outbox
        /// A message refused for good that holds the queue: nothing behind it moves until it is
        /// discarded, so waiting longer cannot help.
        func refusal() -> AgentOutboxEntry? {
            outbox.entries.first { $0.state == .failed && $0.failure?.kind == .refused }
        }
        func settled() -> Bool {
            refusal() != nil
                || requestIds.allSatisfy { id in
                    guard let entry = outbox.entry(id) else { return true }
                    return entry.state == .confirmed || entry.state == .failed
                }
        }
        let finished = await wait(limit: limit, settled)
        var status = ExitCode.success
        if let held = refusal(), !requestIds.contains(held.requestId), let failure = held.failure {
            let said = AgentRefusalAdvice.describe(failure, discard: AgentDiscardCommand.advice(held.requestId))
            io.writeError("\(command): “\(held.label)” (\(held.requestId)) holds the queue: \(said)\n")
            status = .invalidData
        }
        for id in requestIds {
            guard let entry = outbox.entry(id), entry.state != .confirmed else {
                io.writeOutput("confirmed \(id)\n")
                continue
            }
            if entry.state == .failed, let failure = entry.failure {
                let said = AgentRefusalAdvice.describe(failure, discard: AgentDiscardCommand.advice(id))
                io.writeError("\(command): “\(entry.label)” (\(id)) failed: \(said)\n")
                status = worst(status, failure.canRetry ? .unavailable : .invalidData)
            } else {
                io.writeError(
                    "\(command): “\(entry.label)” (\(id)) is not confirmed yet (\(entry.state.rawValue)); it stays in the outbox\n"
                )
                status = worst(status, .unavailable)
            }
        }
        if !finished, refusal() == nil, let reason = outbox.holdReason { io.writeError("\(command): \(reason)\n") }
        return status
    }

    private static func worst(_ lhs: ExitCode, _ rhs: ExitCode) -> ExitCode {
        lhs == .success ? rhs : lhs
    }
}

/// An exit status carried as an error.
struct ExitCodeError: Error {
    var code: ExitCode
    init(_ code: ExitCode) { self.code = code }
}
