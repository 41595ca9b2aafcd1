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
/// leaves the outbox undelivered (rejected for good, or discarded on this device) is reported
/// with its reason and whole text, and the exit status is 65. When the desktop cannot be
/// reached, the message and copies of its attachments stay in the outbox (exit 69) and the
/// next run uploads them first, then sends the message.
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
        try await ClientCommand.run(
            arguments, io: io, spec: spec, common: \.common, parse: parse
        ) { request, connection in
            await send(request, connection: connection, io: io)
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

    @MainActor
    private static func send(_ request: Request, connection: ServerTarget.Connection, io: CommandIO) async
        -> ExitCode
    {
        let desktop = WorkspacesCommand.desktop(connection)
        let chat: WorkspaceChatKey
        switch await WorkspacesCommand.chat(request.session, desktop: desktop, command: name, io: io) {
        case .found(let found): chat = found
        case .failed(let status): return status
        }
        let outbox: WorkspaceOutbox
        do {
            outbox = try WorkspaceSessionParts.outbox(common: request.common, environment: io.environment)
        } catch {
            io.writeError("\(name): the outbox cannot be opened, so nothing was sent: \(error)\n")
            return .noInput
        }
        for problem in await outbox.loadProblems { io.writeError("\(name): \(problem)\n") }
        let host = WorkspaceChatHost(key: chat, rpc: desktop, clock: ContinuousClock(), random: SystemRandomSource())
        defer { host.park() }
        host.activate()
        await ObservationWait.until { host.appliedLoads > 0 || host.lastLoadError != nil }
        let (composer, sender) = WorkspaceSessionParts.composerAndSender(
            host: host, outbox: outbox, desktop: desktop, environment: io.environment)
        let earlier = await outbox.pendingEntries(in: chat).filter { !$0.acceptedByDesktop }.count
        if earlier > 0 { io.writeError("\(name): sending \(earlier) earlier message(s) left in the outbox first\n") }
        await composer.restore()
        // Each earlier message the resend took out of the outbox undelivered is reported from
        // the sender's record: the composer keeps one draft and one notice, and this run's
        // message replaces the draft.
        let lostOnRestore = reportUndelivered(await sender.takeUndelivered(), io: io)
        if !lostOnRestore, let notice = composer.notice {
            io.writeError("\(name): an earlier message: \(TerminalText.safe(notice))\n")
        }
        var status = await send(
            request, through: composer, sender: sender, outbox: outbox, chat: chat, connection: connection, io: io)
        await composer.close()
        if lostOnRestore, status == .success || status == .unavailable { status = .invalidData }
        return status
    }

    /// Says on standard error, for each of `undelivered` (earlier messages of the chat), why
    /// it left the outbox and its whole text, sanitized: the person can send it again. Returns
    /// whether there was one.
    private static func reportUndelivered(_ undelivered: [WorkspaceOutboxSender.Undelivered], io: CommandIO) -> Bool {
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
        return !undelivered.isEmpty
    }

    /// Uploads the attachments, sends the message and reports the outcome.
    @MainActor
    private static func send(
        _ request: Request, through composer: WorkspaceChatComposer, sender: WorkspaceOutboxSender,
        outbox: WorkspaceOutbox, chat: WorkspaceChatKey, connection: ServerTarget.Connection, io: CommandIO
    ) async -> ExitCode {
        guard await upload(request.attachments, composer: composer, io: io) else { return .unavailable }
        // The embedded desktop runs the turn in this process: follow it from before the send,
        // so its end cannot slip by.
        let turn = connection.embedded == nil ? nil : TurnWatch(chat: chat, connection: connection)
        // Earlier messages the resend above could not deliver go first again.
        let earlier = Set(await outbox.pendingEntries(in: chat).map(\.operationId))
        composer.draft = request.text
        let outcome = await composer.send(steer: request.steer)
        let operationId = composer.deliveries.last?.id
        let lostEarlier = reportUndelivered(
            await sender.takeUndelivered().filter { earlier.contains($0.entry.operationId) }, io: io)
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
