import Foundation
import SybilClient
import SybilCore
import SybilWire

/// `sybil agent preview UPLOAD_ID`: what the app's attachment card shows, on standard output.
/// The original is found in the room's history and downloaded verified (`AgentDownloads`);
/// text (HTML and SVG included) is printed as text, never rendered, made safe for the
/// terminal, at most 64 KiB; an image prints its type and pixel size; anything else says there
/// is no preview and how to save it.
enum AgentPreviewCommand {
    static let name = "sybil agent preview"

    struct Request {
        var common: ClientCommand.Common
        var uploadId: String
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await ClientCommand.run(
            arguments, io: io, spec: spec, common: \.common, parse: parse
        ) { request, connection in
            await preview(request, connection: connection, io: io)
        }
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Request? {
        guard let (common, parsed) = try ClientCommand.parse(arguments, environment: environment, spec: spec)
        else { return nil }
        guard parsed.positionals.count == 1, let uploadId = parsed.positionals.first,
            AgentAttachmentManifest.isValidUploadId(uploadId)
        else {
            throw UsageError(
                command: name,
                message: "needs one UPLOAD_ID (1…64 letters, digits or '-'), e.g. sybil agent preview 0d9c…")
        }
        return Request(common: common, uploadId: uploadId)
    }

    @MainActor
    private static func preview(_ request: Request, connection: ServerTarget.Connection, io: CommandIO) async
        -> ExitCode
    {
        await AgentCommand.withSession(request.common, connection: connection, command: name, io: io) {
            session in await preview(request, api: session.api, io: io)
        }
    }

    private static func preview(_ request: Request, api: AgentRoomHTTPClient, io: CommandIO) async -> ExitCode {
        await AgentDownloadCommand.withAttachment(request.uploadId, api: api, command: name, io: io) {
            attachment, downloads in await show(attachment, downloads: downloads, io: io)
        }
    }

    @MainActor
    private static func show(_ attachment: AgentAttachment, downloads: AgentDownloads, io: CommandIO) async
        -> ExitCode
    {
        let preview: AgentDownloadPreview
        do {
            preview = try await downloads.preview(of: attachment)
        } catch {
            return AgentDownloadCommand.failed(error, command: name, io: io)
        }
        io.writeOutput(render(preview, of: attachment))
        return .success
    }

    /// What is printed for `preview`: a heading line naming the file, its type and size, then the
    /// text itself (safe for a terminal), or the image's format and pixel size (the app's
    /// preview overlay shows the same text).
    static func render(_ preview: AgentDownloadPreview, of attachment: AgentAttachment) -> String {
        AgentAttachmentPreviewText.render(
            preview, of: attachment, saveHint: "sybil agent download \(attachment.uploadId)")
    }
}
