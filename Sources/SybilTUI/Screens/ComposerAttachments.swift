import SybilClient

/// The composer's `/attach PATH` lines: each names a file to send with the message (the Agent
/// room and workspace sessions upload it first); the other lines are the message. And how an
/// attachment's progress reads in the status line, with a bar per file. Pure.
public enum ComposerAttachments {
    /// The line prefix that attaches a file.
    public static let prefix = "/attach "

    /// The message without its `/attach` lines, and the paths they name, in order.
    public static func split(_ text: String) -> (caption: String, paths: [String]) {
        var caption: [Substring] = []
        var paths: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(prefix) {
                let path = line.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
                if !path.isEmpty { paths.append(path) }
            } else {
                caption.append(line)
            }
        }
        let joined = caption.joined(separator: "\n")
        return (joined.trimmingCharacters(in: .newlines), paths)
    }

    /// Cells of an upload's progress bar.
    public static let barWidth = 10

    /// `build.log ▕████░░░░░░▏ 40%`, `photo.heic preparing`, `a.pdf failed: …` for the status
    /// line.
    public static func describe(_ item: AgentAttachmentItem) -> String {
        switch item.state {
        case .preparing: "\(item.fileName) preparing"
        case .staged: "\(item.fileName) waiting to upload"
        case .uploading(let progress): "\(item.fileName) " + (progress.map(bar) ?? "uploading")
        case .ready: "\(item.fileName) uploaded"
        case .failed(let failure): "\(item.fileName) failed: \(failure)"
        case .interrupted: "\(item.fileName) interrupted (r retries)"
        }
    }

    /// A workspace attachment: its bar while uploading, then uploaded or why it failed.
    @MainActor
    public static func describe(_ draft: WorkspaceAttachmentDraft) -> String {
        if let failure = draft.failure { return "\(draft.file.fileName) failed: \(failure)" }
        if draft.uploadId != nil { return "\(draft.file.fileName) uploaded" }
        return "\(draft.file.fileName) " + bar(draft.progress.fraction)
    }

    /// `▕████░░░░░░▏ 40%` for a fraction (clamped to 0…1), in ``barWidth`` cells.
    public static func bar(_ fraction: Double) -> String {
        let clamped = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        let filled = Int((clamped * Double(barWidth)).rounded(.down))
        return "▕" + String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled) + "▏ "
            + "\(Int((clamped * 100).rounded(.down)))%"
    }
}
