import Foundation
import SybilClient
import SybilCore
import SybilWire

/// `sybil agent draft [show|clear|retry [N]]`: the Agent room draft an earlier `sybil agent
/// send` left on this device (seed 003: the manifest and staged bytes survive a relaunch).
/// `show` lists the caption and every attachment with its state; `clear` removes them all
/// (local work and staged copies go; uploaded originals stay on the server) and empties the
/// caption; `retry` uploads failed or interrupted attachment N (or the first such one) again
/// with the same upload id, from its staged copy or its file (failed work is never retried by
/// itself).
enum AgentDraftCommand {
    static let name = "sybil agent draft"

    /// What to do with the draft.
    enum Action: String {
        case show, clear, retry
    }

    struct Request {
        var common: ClientCommand.Common
        var action: Action
        /// The attachment `retry` takes (1-based), `nil` for the first that needs it.
        var number: Int?
    }

    /// How long `retry` waits for the upload.
    static let uploadWait: Duration = .seconds(600)

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await ClientCommand.run(
            arguments, io: io, spec: spec, common: \.common, parse: parse
        ) { request, connection in
            await run(request, connection: connection, io: io)
        }
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Request? {
        guard let (common, parsed) = try ClientCommand.parse(arguments, environment: environment, spec: spec)
        else { return nil }
        let word = parsed.positionals.first ?? "show"
        guard let action = Action(rawValue: word) else {
            throw UsageError(
                command: name, message: "unknown action '\(TerminalText.oneLine(word))' (show, clear or retry)")
        }
        let rest = parsed.positionals.dropFirst()
        guard action == .retry || rest.isEmpty else {
            throw UsageError(command: name, message: "\(word) takes nothing after it")
        }
        guard rest.count <= 1 else { throw UsageError(command: name, message: "retry takes at most one N") }
        var number: Int?
        if let text = rest.first {
            guard let value = Int(text), (1...AgentAttachmentLimits.v1.maxFiles).contains(value) else {
                throw UsageError(
                    command: name,
                    message:
                        "retry N: N must be an attachment's number, 1…\(AgentAttachmentLimits.v1.maxFiles) (show lists them)"
                )
            }
            number = value
        }
        return Request(common: common, action: action, number: number)
    }

    @MainActor
    private static func run(_ request: Request, connection: ServerTarget.Connection, io: CommandIO) async -> ExitCode {
        let session: AgentCommand.Session
        switch await AgentCommand.open(request.common, connection: connection, command: name, io: io) {
        case .success(let opened): session = opened
        case .failure(let error): return error.code
        }
        let draft = session.composer.draft
        // Only the saved draft is read: the room is not opened and nothing is uploaded.
        await draft.restore()
        for note in draft.notes { io.writeError("\(name): \(note)\n") }
        draft.clearNotes()
        var status = ExitCode.success
        if let problem = draft.storageProblem {
            io.writeError("\(name): \(problem)\n")
            status = .noInput
        } else {
            switch request.action {
            case .show:
                io.writeOutput(listing(caption: draft.caption, items: draft.items))
            case .retry:
                status = await retry(request.number, draft: draft, api: session.api, io: io)
            case .clear:
                let count = draft.items.count
                await draft.clear()
                if let problem = draft.storageProblem {
                    io.writeError("\(name): \(problem)\n")
                    status = .cannotCreate
                } else {
                    io.writeError(
                        "\(name): cleared the caption and \(count) attachment(s); uploaded originals stay on the server\n"
                    )
                }
            }
        }
        await session.close()
        return status
    }

    /// Uploads attachment `number` (or the first failed or interrupted one) again and waits
    /// for it; progress and the outcome on standard error. 0 uploaded; 65 nothing to retry, it
    /// cannot be retried, or it was refused; 69 the server could not take it now.
    @MainActor
    private static func retry(_ number: Int?, draft: AgentAttachmentDraft, api: AgentRoomHTTPClient, io: CommandIO)
        async -> ExitCode
    {
        let item: AgentAttachmentItem
        if let number {
            guard number <= draft.items.count else {
                io.writeError(
                    "\(name): there is no attachment \(number); the draft has \(draft.items.count) (show lists them)\n")
                return .invalidData
            }
            item = draft.items[number - 1]
            guard item.needsAttention else {
                io.writeError(
                    "\(name): \(TerminalText.oneLine(item.fileName)) is \(item.stateSummary); nothing to retry\n")
                return .invalidData
            }
        } else {
            guard let first = draft.items.first(where: \.needsAttention) else {
                io.writeError("\(name): no attachment in the draft failed or was interrupted; nothing to retry\n")
                return .invalidData
            }
            item = first
        }
        let label = TerminalText.oneLine(item.fileName)
        // The room's limits decide the upload; the room itself is not opened.
        let descriptor: AgentRoomDescriptor
        do {
            descriptor = try await api.descriptor()
        } catch {
            io.writeError("\(name): the room's descriptor could not be loaded (\(error)); nothing was retried\n")
            return error.status == nil ? .unavailable : .invalidData
        }
        guard let capability = descriptor.attachments else {
            io.writeError("\(name): this room does not take attachments; nothing was retried\n")
            return .invalidData
        }
        draft.setCapability(capability)
        draft.retry(item.id)
        guard let started = draft.item(item.id), !started.needsAttention else {
            io.writeError(
                "\(name): \(label) cannot be retried (its file is no longer known); `sybil agent draft clear` drops it\n"
            )
            return .invalidData
        }
        io.writeError("\(name): retrying \(label)\n")
        let done = await AgentCommand.wait(limit: uploadWait) {
            guard let current = draft.item(item.id) else { return true }
            return current.isReady || current.needsAttention
        }
        guard let current = draft.item(item.id), done else {
            io.writeError("\(name): \(label) did not finish uploading; it stays in the draft\n")
            return .unavailable
        }
        if let failure = current.failure {
            io.writeError("\(name): \(label): \(TerminalText.oneLine(failure.description))\n")
            if case .rejected = failure { return .invalidData }
            return failure.status.map { (400..<500).contains($0) && $0 != 429 } == true ? .invalidData : .unavailable
        }
        guard let attachment = current.attachment else {
            io.writeError("\(name): \(label) is \(current.stateSummary); it stays in the draft\n")
            return .unavailable
        }
        io.writeError(
            "\(name): \(label) uploaded (\(attachment.size) bytes, \(attachment.uploadId)); the next `sybil agent send` takes it\n"
        )
        return .success
    }

    /// The draft as printed by `show`: the caption, then one numbered line per attachment with
    /// its type, size and state; or a line saying it is empty.
    static func listing(caption: String, items: [AgentAttachmentItem]) -> String {
        guard !items.isEmpty || !caption.isEmpty else { return "The draft is empty.\n" }
        var text = caption.isEmpty ? "caption: (none)\n" : "caption: \(TerminalText.oneLine(caption))\n"
        for (index, item) in items.enumerated() {
            let size = item.size.map { " · \($0) bytes" } ?? ""
            let id = item.attachment.map { " · \($0.uploadId)" } ?? ""
            text +=
                TerminalText.oneLine(
                    "\(index + 1). \(item.fileName) · \(item.mimeType)\(size) · \(item.stateSummary)\(id)") + "\n"
        }
        return text
    }
}
