import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilServer
import SybilStore
import SybilWire

/// `sybil workspaces send SESSION TEXT [--steer] [--attach FILE]…`: uploads the attachments
/// (progress on standard error), saves the message in the outbox copy, sends it through the
/// outbox sender and exits 0 once the desktop accepted it. Messages an earlier run left in
/// the outbox for the chat are sent first, in order, with their original ids; each that
/// leaves the outbox undelivered (rejected for good, or discarded on this device) has its text
/// kept with the session's undelivered messages first (the list the app shows), so a kill at
/// any moment loses nothing, and is reported with its reason and whole text; the exit status
/// is 65. When no online desktop lists the session, the messages queued for it are sent once
/// more for the desktop's final answer, and standard error says which were delivered, kept
/// (with the reason) or still queued; when one chat took some, the session exists, unlisted,
/// and the message is sent there too, else it is not sent (exit 65). When the desktop cannot
/// be reached, the message and copies of its attachments stay in the outbox (exit 69) and the
/// next run uploads them first, then sends the message. An outbox that cannot be opened is
/// exit 66, whether or not the session is listed.
enum WorkspacesSendCommand {
    static let name = "sybil workspaces send"

    struct Request {
        var common: ClientCommand.Common
        var session: String
        var text: String
        var steer = false
        var attachments: [String] = []
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await run(arguments, io: io, stores: .files)
    }

    /// The command with the way it opens the outbox copy and the kept texts injected (tests
    /// pass the same file stores, watched at each step of their writes).
    static func run(_ arguments: [String], io: CommandIO, stores: Stores) async throws(UsageError) -> ExitCode {
        try await ClientCommand.run(
            arguments, io: io, spec: spec, common: \.common, parse: parse
        ) { request, connection in
            await send(request, connection: connection, stores: stores, io: io)
        }
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Request? {
        guard
            let (common, parsed) = try ClientCommand.parse(
                arguments, environment: environment, spec: spec)
        else { return nil }
        let steer = parsed.options.steer
        let attachments = parsed.options.attach
        let words = parsed.positionals
        guard let session = words.first, !session.isEmpty else {
            throw UsageError(
                command: name, message: "needs SESSION and TEXT, e.g. sybil workspaces send sess-42 \"Hi\"")
        }
        let text = words.dropFirst().joined(separator: " ")
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty && attachments.isEmpty {
            throw UsageError(
                command: name, message: "needs TEXT (or --attach FILE), e.g. sybil workspaces send sess-42 \"Hi\"")
        }
        return Request(common: common, session: session, text: text, steer: steer, attachments: attachments)
    }

    /// How the command opens the outbox copy and the list the texts of messages that leave it
    /// undelivered are kept in, for the common options and the environment.
    struct Stores {
        /// Opens the outbox copy; throws when it cannot be opened.
        var outbox: @MainActor (ClientCommand.Common, CommandIO) throws -> WorkspaceOutbox
        /// Opens the kept texts, saying on standard error when they cannot be kept past the run.
        var kept: @MainActor (ClientCommand.Common, CommandIO) -> WorkspaceUndeliveredMessages

        /// The files under `$XDG_DATA_HOME/sybil/client` (memory with `--in-memory`).
        static var files: Stores {
            Stores(
                outbox: { common, io in try WorkspaceSessionParts.outbox(common: common, environment: io.environment) },
                kept: { common, io in
                    WorkspaceSessionParts.undelivered(
                        common: common, environment: io.environment, command: name, io: io)
                })
        }
    }

    /// The outbox copy and the list the texts of messages that leave it undelivered are kept
    /// in (the one the terminal app shows), opened together.
    struct Storage {
        var outbox: WorkspaceOutbox
        var kept: WorkspaceUndeliveredMessages
    }

    /// Opens the outbox and the kept texts, saying on standard error what could not be read;
    /// `nil` after saying why when the outbox cannot be opened.
    @MainActor
    private static func openStorage(_ request: Request, stores: Stores, io: CommandIO) -> Storage? {
        do {
            let outbox = try stores.outbox(request.common, io)
            return Storage(outbox: outbox, kept: stores.kept(request.common, io))
        } catch {
            io.writeError("\(name): the outbox cannot be opened, so nothing was sent: \(error)\n")
            return nil
        }
    }

    @MainActor
    private static func send(
        _ request: Request, connection: ServerTarget.Connection, stores: Stores, io: CommandIO
    ) async -> ExitCode {
        let desktop = WorkspacesCommand.desktop(connection)
        let found: WorkspaceChatKey?
        do {
            found = try await WorkspacesCommand.resolve(request.session, desktop: desktop)
        } catch {
            io.writeError("\(name): \(error)\n")
            return WorkspacesCommand.exitCode(for: error)
        }
        let notSent =
            "\(name): no session '\(TerminalText.safe(request.session))' on an online desktop, so this message was not sent; see sybil workspaces list\n"
        // An outbox that cannot be opened is exit 66 whether or not the session is listed: the
        // messages queued in it cannot be looked at either.
        guard let storage = openStorage(request, stores: stores, io: io) else {
            if found == nil { io.writeError(notSent) }
            return .noInput
        }
        report(await storage.outbox.loadProblems, storage.kept, io: io)
        var lostEarlier = false
        let chat: WorkspaceChatKey
        if let found {
            chat = found
        } else {
            let stranded = await sendStranded(for: request.session, storage: storage, desktop: desktop, io: io)
            lostEarlier = stranded.contains { $0.kept > 0 }
            // A chat that took earlier messages exists although no desktop lists it: this
            // message follows them there, unless several chats with that session id took some.
            let taking = stranded.filter { $0.delivered > 0 }
            guard taking.count == 1, let took = taking.first else {
                if taking.count > 1 {
                    io.writeError(
                        "\(name): \(taking.count) chats with session id '\(TerminalText.safe(request.session))' took earlier messages; name one as DESKTOP/PROJECT/SESSION\n"
                    )
                }
                io.writeError(notSent)
                return .invalidData
            }
            chat = took.chat
            io.writeError(
                "\(name): session \(TerminalText.safe(chat.description)) took the earlier message(s), so this message is sent to it too\n"
            )
        }
        return await opening(chat, storage: storage, desktop: desktop, io: io) { composer, sender, lostOnRestore in
            var status = await send(
                request, through: composer, sender: sender, storage: storage, chat: chat, connection: connection,
                io: io)
            if lostOnRestore > 0 || lostEarlier, status == .success || status == .unavailable {
                status = .invalidData
            }
            return status
        }
    }

    /// Says on standard error what could not be read of the outbox and of the kept texts.
    @MainActor
    private static func report(_ outboxProblems: [String], _ kept: WorkspaceUndeliveredMessages, io: CommandIO) {
        for problem in outboxProblems { io.writeError("\(name): \(problem)\n") }
        if let problem = kept.loadProblem { io.writeError("\(name): \(TerminalText.safe(problem))\n") }
    }

    /// Opens `chat` with a composer over the outbox, sends the messages earlier runs left in it
    /// for the chat first (in order, with their original ids) and reports each that left the
    /// outbox undelivered, then runs `body` with the composer, its sender and how many were
    /// lost, and closes the chat.
    @MainActor
    private static func opening(
        _ chat: WorkspaceChatKey, storage: Storage, desktop: WorkspaceDesktopClient, io: CommandIO,
        body: (WorkspaceChatComposer, WorkspaceOutboxSender, Int) async -> ExitCode
    ) async -> ExitCode {
        let host = WorkspaceChatHost(key: chat, rpc: desktop, clock: ContinuousClock(), random: SystemRandomSource())
        defer { host.park() }
        host.activate()
        await ObservationWait.until { host.appliedLoads > 0 || host.lastLoadError != nil }
        // The sender saves the text of each message that leaves the outbox undelivered in the
        // kept list before its entry leaves: a crash at any moment leaves the text in one of
        // them. The composer leaves it there (a command has no draft to give it back into).
        let (composer, sender) = WorkspaceSessionParts.composerAndSender(
            host: host, outbox: storage.outbox, desktop: desktop, environment: io.environment,
            undelivered: storage.kept, restoresIntoDraft: false)
        let earlier = await storage.outbox.pendingEntries(in: chat).filter { !$0.acceptedByDesktop }.count
        if earlier > 0 { io.writeError("\(name): sending \(earlier) earlier message(s) left in the outbox first\n") }
        await composer.restore()
        // Each earlier message the resend took out of the outbox undelivered is reported from
        // the sender's record: the composer keeps one notice.
        let lostOnRestore = reportUndelivered(await sender.takeUndelivered(), kept: storage.kept, io: io)
        if lostOnRestore == 0, let notice = composer.notice {
            io.writeError("\(name): an earlier message: \(TerminalText.safe(notice))\n")
        }
        let status = await body(composer, sender, lostOnRestore)
        await composer.close()
        return status
    }

    /// What became of the messages an earlier run left in the outbox for one chat whose
    /// session no online desktop lists, once they were sent again.
    struct Stranded {
        var chat: WorkspaceChatKey
        /// Accepted by the desktop: delivered.
        var delivered = 0
        /// Refused for good (or no longer sendable from this device): out of the outbox, their
        /// texts kept with the session's undelivered messages.
        var kept = 0
        /// Given no final answer (the desktop cannot be reached): still in the outbox.
        var queued = 0
    }

    /// No online desktop lists the session id `session`: messages earlier runs left in the
    /// outbox for a chat with that session id would wait there for ever. Each is sent once
    /// more, so that the desktop gives its final answer, and standard error says what became
    /// of them, chat by chat: accepted, they are delivered (the session exists, unlisted); one
    /// it refuses (the session is gone) leaves the outbox, its text kept and reported whole;
    /// one whose desktop cannot be reached stays. Returns the count of each, chat by chat.
    @MainActor
    private static func sendStranded(
        for session: String, storage: Storage, desktop: WorkspaceDesktopClient, io: CommandIO
    ) async -> [Stranded] {
        var outcomes: [Stranded] = []
        let stranded = await storage.outbox.chatsWithPendingEntries.filter { $0.sessionId == session }
        for chat in stranded {
            let waiting = await storage.outbox.pendingEntries(in: chat).filter { !$0.acceptedByDesktop }
            guard !waiting.isEmpty else { continue }
            let named = TerminalText.safe(chat.description)
            io.writeError(
                "\(name): \(waiting.count) message(s) an earlier run left in the outbox for session \(named), which no online desktop lists, are sent once more for the desktop's final answer\n"
            )
            var outcome = Stranded(chat: chat)
            _ = await opening(chat, storage: storage, desktop: desktop, io: io) { composer, _, lost in
                let left = Set(
                    await storage.outbox.pendingEntries(in: chat).filter { !$0.acceptedByDesktop }.map(\.operationId))
                outcome.kept = lost
                outcome.queued = left.count
                outcome.delivered = max(0, waiting.filter { !left.contains($0.operationId) }.count - lost)
                if outcome.delivered > 0 {
                    io.writeError(
                        "\(name): \(outcome.delivered) of them the desktop accepted: delivered to session \(named)\n")
                }
                if outcome.queued > 0 {
                    let reason = composer.deliveries.lazy.compactMap { delivery -> String? in
                        if case .failed(let reason) = delivery.state { return reason }
                        return nil
                    }.first
                    io.writeError(
                        "\(name): \(outcome.queued) message(s) for session \(named) stay in the outbox (\(TerminalText.safe(reason ?? "no final answer"))); the next 'sybil workspaces send' to it sends them again\n"
                    )
                }
                return .success
            }
            outcomes.append(outcome)
        }
        return outcomes
    }

    /// Says on standard error, for each of `undelivered` (earlier messages of the chat), why
    /// it left the outbox and its whole text, sanitized: the person can send it again. The
    /// text was saved in `kept` before its entry left the outbox, and stays there (the
    /// terminal app shows it). Returns how many there were.
    @MainActor
    private static func reportUndelivered(
        _ undelivered: [WorkspaceOutboxSender.Undelivered], kept: WorkspaceUndeliveredMessages, io: CommandIO
    ) -> Int {
        for message in undelivered {
            switch message.outcome {
            case .rejected(let reason):
                io.writeError("\(name): the desktop rejected an earlier message: \(TerminalText.safe(reason))\n")
            case .discarded(let reason):
                io.writeError(
                    "\(name): an earlier message could not be sent from this device: \(TerminalText.safe(reason))\n")
            case .accepted, .timedOut, .failed, .alreadyCompleted:
                continue
            }
            io.writeError(
                "\(name): the earlier message that was not sent was: \"\(TerminalText.safe(message.entry.mutation.text))\"\n"
            )
        }
        if !undelivered.isEmpty, kept.persistence != nil {
            io.writeError(
                "\(name): the text of each is kept with the session's undelivered messages (under $XDG_DATA_HOME/sybil/client), which 'sybil app' shows\n"
            )
        }
        return undelivered.count
    }

    /// Uploads the attachments, sends the message and reports the outcome.
    @MainActor
    private static func send(
        _ request: Request, through composer: WorkspaceChatComposer, sender: WorkspaceOutboxSender,
        storage: Storage, chat: WorkspaceChatKey, connection: ServerTarget.Connection, io: CommandIO
    ) async -> ExitCode {
        guard await upload(request.attachments, composer: composer, io: io) else { return .unavailable }
        // The embedded desktop runs the turn in this process: follow it from before the send,
        // so its end cannot slip by.
        let turn = connection.embedded == nil ? nil : TurnWatch(chat: chat, connection: connection)
        // Earlier messages the resend above could not deliver go first again.
        let earlier = Set(await storage.outbox.pendingEntries(in: chat).map(\.operationId))
        composer.draft = request.text
        let outcome = await composer.send(steer: request.steer)
        let operationId = composer.deliveries.last?.id
        let undelivered = await sender.takeUndelivered()
        let lostEarlier =
            reportUndelivered(
                undelivered.filter { earlier.contains($0.entry.operationId) }, kept: storage.kept, io: io) > 0
        // This run's own message, refused: its text is on the command line, so the copy the
        // sender kept leaves the list once the refusal is reported below.
        defer {
            for own in undelivered where !earlier.contains(own.entry.operationId) {
                storage.kept.take(own.entry.operationId, in: chat)
            }
        }
        switch outcome {
        case nil:
            io.writeError("\(name): \(TerminalText.safe(composer.notice ?? "nothing was sent"))\n")
            return .invalidData
        case .accepted?, .alreadyCompleted?:
            io.writeOutput("accepted by \(chat.desktopId): \(chat)\n")
            if let turn, let operationId {
                io.writeError("\(name): the embedded desktop is running the turn\n")
                let ending = await turn.ending(of: operationId, limit: .seconds(60))
                io.writeError("\(name): the turn \(ending.map(\.rawValue) ?? "did not end within 60 s")\n")
            }
            return lostEarlier ? .invalidData : .success
        case .rejected(let reason)?:
            io.writeError("\(name): the desktop did not take the message: \(TerminalText.safe(reason))\n")
            return .invalidData
        case .discarded(let reason)?:
            io.writeError("\(name): the message could not be sent from this device: \(TerminalText.safe(reason))\n")
            return .invalidData
        case .timedOut?, .failed?:
            let reason = composer.deliveries.last.flatMap { delivery -> String? in
                if case .failed(let reason) = delivery.state { return reason }
                return nil
            }
            if request.attachments.isEmpty {
                io.writeError(
                    "\(name): not accepted yet (\(reason ?? "no receipt")); it stays in the outbox and is sent again, with the same ids, by the next 'sybil workspaces send' to this chat\n"
                )
            } else {
                let count = request.attachments.count
                io.writeError(
                    "\(name): not accepted yet (\(reason ?? "no receipt")); the message and its \(count) attachment\(count == 1 ? "" : "s") are kept in the outbox and will be sent (uploads first) by the next 'sybil workspaces send' to this chat (or the app)\n"
                )
            }
            return lostEarlier ? .invalidData : .unavailable
        }
    }

    /// Uploads every file with progress on standard error; returns whether the message can be
    /// sent: every file arrived, or those that did not failed only because the desktop could
    /// not be reached (they then wait in the outbox with the message).
    @MainActor
    private static func upload(_ paths: [String], composer: WorkspaceChatComposer, io: CommandIO) async -> Bool {
        guard !paths.isEmpty else { return true }
        let drafts = paths.compactMap { path in
            composer.attach(AttachmentUploader.File(path: path))
        }
        var reported: [String: Int] = [:]
        func report() {
            for draft in drafts {
                let percent = Int(draft.progress.fraction * 100)
                guard reported[draft.id] != percent else { continue }
                reported[draft.id] = percent
                io.writeError("\(name): \(draft.file.fileName) \(percent)%\n")
            }
        }
        let uploads = Task { @MainActor in await composer.waitForUploads() }
        let done = StopFlag()
        let watcher = Task { @MainActor in
            await uploads.value
            done.isSet = true
        }
        defer { watcher.cancel() }
        while !done.isSet {
            report()
            do { try await ContinuousClock().sleep(for: .milliseconds(200)) } catch { break }
        }
        report()
        var ok = true
        for draft in drafts where draft.uploadId == nil && !draft.canWaitInOutbox {
            io.writeError("\(name): \(draft.file.fileName) was not uploaded: \(draft.failure ?? "unknown reason")\n")
            ok = false
        }
        return ok
    }
}
