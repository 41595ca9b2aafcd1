import Foundation
import SybilClient
import SybilCore
import SybilWire

/// `sybil agent download UPLOAD_ID [-o FILE]`: finds the attachment in the room's history,
/// downloads its original through `AgentDownloads` (the authenticated API base, redirects
/// refused, exact size and SHA-256 checked) and writes it without overwriting anything.
enum AgentDownloadCommand {
    static let name = "sybil agent download"
    /// How far back the history is searched for the attachment.
    static let searchLimit = 20_000

    struct Request {
        var common: ClientCommand.Common
        var uploadId: String
        var output: String?
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await ClientCommand.run(
            arguments, io: io, spec: spec, common: \.common, parse: parse
        ) { request, connection in
            await download(request, connection: connection, io: io)
        }
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Request? {
        guard let (common, parsed) = try ClientCommand.parse(arguments, environment: environment, spec: spec)
        else { return nil }
        let output = parsed.options.output
        guard let uploadId = parsed.positionals.first, !uploadId.isEmpty else {
            throw UsageError(command: name, message: "needs one UPLOAD_ID, e.g. sybil agent download 0d9c6a4e-…")
        }
        return Request(common: common, uploadId: uploadId, output: output)
    }

    @MainActor
    private static func download(_ request: Request, connection: ServerTarget.Connection, io: CommandIO) async
        -> ExitCode
    {
        await AgentCommand.withSession(request.common, connection: connection, command: name, io: io) {
            session in await download(request, api: session.api, io: io)
        }
    }

    private static func download(_ request: Request, api: AgentRoomHTTPClient, io: CommandIO) async -> ExitCode {
        await withAttachment(request.uploadId, api: api, command: name, io: io) { attachment, downloads in
            await save(request, attachment: attachment, downloads: downloads, io: io)
        }
    }

    /// Finds `uploadId`'s attachment in the room and runs `body` with it and the room's
    /// downloads (their scratch export folder removed afterwards); when it is not found or the
    /// room cannot be read, says why and returns the exit code.
    @MainActor
    static func withAttachment(
        _ uploadId: String, api: AgentRoomHTTPClient, command: String, io: CommandIO,
        _ body: (AgentAttachment, AgentDownloads) async -> ExitCode
    ) async -> ExitCode {
        let attachment: AgentAttachment
        do {
            guard let found = try await find(uploadId, api: api) else {
                io.writeError("\(command): no attachment \(uploadId) in the room's newest \(searchLimit) messages\n")
                return .invalidData
            }
            attachment = found
        } catch {
            io.writeError("\(command): \(error)\n")
            return error.status == nil ? .unavailable : .invalidData
        }
        // Exports are not made by the commands; the scratch folder's random name is the live default.
        let scratchName = UUID().uuidString  // live default: a fresh scratch name
        let exports = NSTemporaryDirectory() + "sybil-agent-exports-\(scratchName)"
        defer { try? FileManager.default.removeItem(atPath: exports) }
        let downloads = AgentDownloads(
            api: api, exportDirectory: exports, ids: RandomUUIDGenerator(source: SystemRandomSource()))
        return await body(attachment, downloads)
    }

    /// Says why a download failed; 69 when the server could not be reached, else 65.
    static func failed(_ error: AgentDownloadError, command: String, io: CommandIO) -> ExitCode {
        io.writeError("\(command): \(error)\n")
        if case .failed(let cause) = error, cause.status == nil, case .transport = cause { return .unavailable }
        return .invalidData
    }

    @MainActor
    private static func save(
        _ request: Request, attachment: AgentAttachment, downloads: AgentDownloads, io: CommandIO
    ) async -> ExitCode {
        let bytes: [UInt8]
        do {
            bytes = try await downloads.original(of: attachment)
        } catch {
            return failed(error, command: name, io: io)
        }
        // The server's file name, cleaned as the draft cleans names (no path, no control characters).
        let output = request.output ?? AgentAttachmentPreparer.displayName(attachment.fileName)
        do {
            try AgentOriginalFile.write(bytes, to: output)
        } catch .exists {
            io.writeError("\(name): '\(output)' exists; choose another with -o FILE\n")
            return .cannotCreate
        } catch {
            io.writeError("\(name): \(error)\n")
            return .cannotCreate
        }
        io.writeError("\(name): wrote \(bytes.count) bytes (SHA-256 \(attachment.sha256)) to \(output)\n")
        return .success
    }

    /// The attachment's descriptor from the room's history, newest messages first.
    static func find(_ uploadId: String, api: AgentRoomHTTPClient) async throws(AgentRoomError)
        -> AgentAttachment?
    {
        var before: AgentCursor?
        var searched = 0
        while searched < searchLimit {
            let page = try await api.messages(after: nil, before: before, limit: 200)
            for message in page.messages.reversed() {
                if let found = message.attachments.first(where: { $0.uploadId == uploadId }) { return found }
            }
            searched += page.messages.count
            guard page.hasMoreBefore, let oldest = page.messages.first?.cursor else { return nil }
            before = oldest
        }
        return nil
    }
}
