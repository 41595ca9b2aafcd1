import Foundation
import SybilClient
import SybilCore
import SybilWire

/// `sybil agent send TEXT [--attach FILE]… [--photo FILE]…`: checks the files against the v1
/// ceilings before anything is sent, opens the room, prepares and uploads the attachments one
/// at a time through the draft (progress on standard error), hands the draft to the outbox
/// and waits for the room's echo. Messages an earlier run left queued go first, in order. The
/// draft an earlier run left (uploaded files, failed ones) is continued, never thrown away: a
/// failed file is left out of the message and stays for the next run.
enum AgentSendCommand {
    static let name = "sybil agent send"

    struct Request {
        var common: ClientCommand.Common
        var text: String
        var files: [(path: String, kind: AgentAttachmentSource.Kind)] = []
        var wait: Duration = .seconds(60)
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        // Files are checked before a server is started or anything is sent.
        if let request = try parse(arguments, environment: io.environment),
            let (status, problem) = precheck(request.files, text: request.text)
        {
            io.writeError("\(name): \(sentence(problem)) Nothing was sent.\n")
            return status
        }
        return try await ClientCommand.run(
            arguments, io: io, spec: spec, common: \.common, parse: parse
        ) { request, connection in
            await send(request, connection: connection, io: io)
        }
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Request? {
        guard let (common, parsed) = try ClientCommand.parse(arguments, environment: environment, spec: spec) else {
            return nil
        }
        let files = parsed.options.files
        let wait = Duration.seconds(parsed.options.wait)
        let text = parsed.positionals.joined(separator: " ")
        if text.allSatisfy(\.isWhitespace) && files.isEmpty {
            throw UsageError(command: name, message: "needs TEXT (or --attach FILE), e.g. sybil agent send \"Hi\"")
        }
        return Request(common: common, text: text, files: files, wait: wait)
    }

    /// The files' problems against the v1 ceilings, before anything is opened or sent: the
    /// exit status and a sentence naming the file and the limit, or `nil` when all pass.
    static func precheck(_ files: [(path: String, kind: AgentAttachmentSource.Kind)], text: String = "") -> (
        ExitCode, String
    )? {
        if text.utf8.count > AgentRoomSubmission.maxTextBytes {
            return (
                .invalidData,
                "The message is \(text.utf8.count) bytes long; at most \(AgentRoomSubmission.maxTextBytes) fit in one message (attach long text as a file)"
            )
        }
        let limits = AgentAttachmentLimits.v1
        if files.count > limits.maxFiles {
            return (.invalidData, "At most \(limits.maxFiles) files go with one message; got \(files.count)")
        }
        var total: Int64 = 0
        for file in files {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isReadableFile(atPath: file.path),
                let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber
            else {
                return (.noInput, "Cannot read '\(file.path)'")
            }
            let name = (file.path as NSString).lastPathComponent
            let mimeType = AgentAttachmentPreparer.mimeType(forFileName: name)
            // A photo may shrink when it is converted; its total is checked after preparation.
            if file.kind == .photo { continue }
            do {
                try AgentAttachmentPreparer.check(
                    size: size.int64Value, mimeType: mimeType, fileName: name, otherBytes: total, limits: limits)
            } catch {
                return (.invalidData, error.description)
            }
            total += size.int64Value
        }
        return nil
    }

    /// Where a draft that was not sent whole stays.
    static let keptSentence =
        "The draft is kept for the next run: `sybil agent draft show` lists it, `sybil agent draft retry` retries a failed file, `sybil agent draft clear` drops it."

    /// `text` ending with a full stop.
    static func sentence(_ text: String) -> String {
        text.hasSuffix(".") ? text : text + "."
    }

    @MainActor
    private static func send(_ request: Request, connection: ServerTarget.Connection, io: CommandIO) async
        -> ExitCode
    {
        await AgentCommand.withSession(request.common, connection: connection, command: name, io: io) {
            session in await send(request, in: session, io: io)
        }
    }

    @MainActor
    private static func send(_ request: Request, in session: AgentCommand.Session, io: CommandIO) async -> ExitCode {
        let composer = session.composer
        await composer.start()
        // The draft an earlier run left (its uploaded files, a failed one to retry or remove)
        // is kept: this message continues it (`sybil agent draft clear` starts over).
        for note in composer.draft.notes { io.writeError("\(name): \(note)\n") }
        composer.draft.clearNotes()
        if !composer.draft.items.isEmpty {
            let kept = composer.draft.items.map { "\($0.fileName) (\($0.stateSummary))" }
            io.writeError(
                "\(name): the draft keeps \(kept.count) earlier attachment(s): \(kept.joined(separator: ", "))\n")
        }
        let earlier = composer.pending.filter { $0.state != .failed }.map(\.requestId)
        if !earlier.isEmpty {
            io.writeError("\(name): sending \(earlier.count) earlier message(s) left in the outbox first\n")
        }
        if let problem = composer.room.roomError { io.writeError("\(name): \(problem)\n") }
        if !request.files.isEmpty {
            guard composer.room.descriptor?.attachments != nil else {
                io.writeError(
                    "\(name): \(composer.room.descriptor == nil ? "the room's descriptor could not be loaded" : "this room does not take attachments"); nothing was sent\n"
                )
                return composer.room.descriptor == nil ? .unavailable : .invalidData
            }
        }
        // TEXT replaces the saved caption; without it the draft's own caption goes.
        if !request.text.isEmpty { await composer.updateCaption(request.text) }
        if !request.files.isEmpty, let status = await attach(request.files, composer: composer, io: io) {
            io.writeError("\(name): \(keptSentence)\n")
            return status
        }
        guard let entry = await composer.send() else {
            io.writeError("\(name): \(composer.notice ?? "nothing was queued")\n")
            return composer.draft.items.contains(where: \.isInProgress) ? .unavailable : .invalidData
        }
        if let notice = composer.notice { io.writeError("\(name): \(notice) (\(keptSentence))\n") }
        io.writeError("\(name): queued as \(entry.requestId)\n")
        return await AgentCommand.awaitEchoes(
            of: earlier + [entry.requestId], in: session, limit: request.wait, command: name, io: io)
    }

    /// Prepares and uploads the files through the draft, one at a time, with progress on
    /// standard error; the exit status when one did not become ready.
    @MainActor
    private static func attach(
        _ files: [(path: String, kind: AgentAttachmentSource.Kind)], composer: AgentRoomComposer, io: CommandIO
    ) async -> ExitCode? {
        let draft = composer.draft
        // The draft follows the room's capability; wait until it has it.
        guard await AgentCommand.wait(limit: .seconds(10), { draft.canSelect }) else {
            io.writeError("\(name): attachments are not available right now; nothing was sent\n")
            return .unavailable
        }
        let sources = files.map { file -> AgentAttachmentSource in
            let fileName = (file.path as NSString).lastPathComponent
            return .file(atPath: file.path, kind: file.kind, fileName: fileName)
        }
        let before = Set(draft.items.map(\.id))
        await draft.select(sources)
        for note in draft.notes { io.writeError("\(name): \(note)\n") }
        let ids = draft.items.map(\.id).filter { !before.contains($0) }
        guard ids.count == files.count else { return .invalidData }
        var reported: [String: String] = [:]
        func report() {
            for item in draft.items where ids.contains(item.id) {
                let state = describe(item.state)
                guard reported[item.id] != state else { continue }
                reported[item.id] = state
                io.writeError("\(name): \(item.fileName) \(state)\n")
            }
        }
        let done = await AgentCommand.wait(limit: .seconds(600)) {
            report()
            return ids.allSatisfy { id in
                guard let item = draft.item(id) else { return true }
                if case .failed = item.state { return true }
                return item.isReady
            }
        }
        report()
        for id in ids {
            guard let item = draft.item(id) else { continue }
            if let failure = item.failure {
                io.writeError("\(name): \(item.fileName): \(sentence(failure.description)) Nothing was sent.\n")
                if case .rejected = failure { return .invalidData }
                return failure.status.map { (400..<500).contains($0) && $0 != 429 } == true
                    ? .invalidData : .unavailable
            }
            if !done || !item.isReady {
                io.writeError("\(name): \(item.fileName) did not finish uploading; nothing was sent\n")
                return .unavailable
            }
        }
        return nil
    }

    private static func describe(_ state: AgentAttachmentItem.State) -> String {
        switch state {
        case .preparing: "preparing"
        case .staged: "staged"
        case .uploading(let progress): progress.map { "uploading \(Int($0 * 100))%" } ?? "uploading"
        case .ready(let attachment): "uploaded (\(attachment.size) bytes, \(attachment.uploadId))"
        case .failed: "failed"
        case .interrupted: "interrupted"
        }
    }
}
