import Foundation
import SybilClient
import SybilCore

/// `sybil agent draft [show|clear]`: the Agent room draft an earlier `sybil agent send` left on
/// this device (seed 003: the manifest and staged bytes survive a relaunch). `show` lists the
/// caption and every attachment with its state; `clear` removes them all (local work and
/// staged copies go; uploaded originals stay on the server) and empties the caption.
enum AgentDraftCommand {
    static let name = "sybil agent draft"

    /// What to do with the draft.
    enum Action: String {
        case show, clear
    }

    struct Request {
        var common: ClientCommand.Common
        var action: Action
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await ClientCommand.run(
            arguments, io: io, spec: .agentDraft, common: \.common, parse: parse
        ) { request, connection in
            await run(request, connection: connection, io: io)
        }
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Request? {
        guard let (common, parsed) = try ClientCommand.parse(arguments, environment: environment, spec: .agentDraft)
        else { return nil }
        guard parsed.positionals.count <= 1 else { throw UsageError(command: name, message: "takes show or clear") }
        let word = parsed.positionals.first ?? "show"
        guard let action = Action(rawValue: word) else {
            throw UsageError(command: name, message: "unknown action '\(TerminalText.oneLine(word))' (show or clear)")
        }
        return Request(common: common, action: action)
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
