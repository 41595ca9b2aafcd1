import Foundation
import SybilClient

/// The composer's `/attach PATH` lines: each names a file to send with the message (the Agent
/// room and workspace sessions upload it first); the other lines are the message. The Agent
/// room's draft commands (`/attachments`, `/detach N`, `/detach all`). And how an
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

    /// A composer line that manages the Agent room draft instead of being sent.
    public enum DraftCommand: Sendable, Hashable {
        /// `/detach N`: remove the draft's attachment N (1-based, as `/attachments` numbers them).
        case detach(Int)
        /// `/detach all`: remove every attachment.
        case detachAll
        /// `/attachments`: list the attachments with their state.
        case list
        /// A `/detach` whose argument is not a number or `all`: the sentence says what is.
        case invalid(String)
    }

    /// The most attachments a draft holds (seed 003: 8 files per message); `/detach N` beyond
    /// any reasonable count is refused before it is looked up.
    static let maxItemNumber = 1_000

    /// The draft command `text` is, when it is one line of exactly `/attachments`,
    /// `/detach all` or `/detach N`; `nil` for a message.
    public static func draftCommand(_ text: String) -> DraftCommand? {
        let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !line.contains("\n") else { return nil }
        if line == "/attachments" { return .list }
        guard line == "/detach" || line.hasPrefix("/detach ") else { return nil }
        let argument = line.dropFirst("/detach".count).trimmingCharacters(in: .whitespaces)
        if argument == "all" { return .detachAll }
        guard let number = Int(argument), (1...maxItemNumber).contains(number) else {
            return .invalid("Say which attachment: /detach N (1, 2, … as /attachments lists them) or /detach all.")
        }
        return .detach(number)
    }

    /// `1 bad.png failed: … · 2 notes.txt uploaded` for the status line, or a sentence when the
    /// draft has no attachments.
    public static func listing(_ items: [AgentAttachmentItem]) -> String {
        guard !items.isEmpty else { return "The draft has no attachments." }
        return items.enumerated().map { "\($0.offset + 1) \(describe($0.element))" }.joined(separator: " · ")
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
        case .interrupted: "\(item.fileName) interrupted (r retries, x removes)"
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
