import Foundation
import SybilClient
import SybilCore
import SybilWire

/// The composer's `/attach PATH` lines: each names a file to send with the message (the Agent
/// room and workspace sessions upload it first; an ordinary chat stages it inline); the other
/// lines are the message. The draft commands (`/attachments`, `/detach N`, `/detach all`) of
/// the Agent room and of ordinary chats, read and resolved here for both. The staged list
/// drawn under an ordinary chat's composer. And how an attachment's progress reads in the
/// status line, with a bar per file. Pure.
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

    /// A composer line that manages the attachments waiting to be sent (the Agent room's draft,
    /// an ordinary chat's staged files) instead of being sent.
    public enum DraftCommand: Sendable, Hashable {
        /// `/detach N`: remove the draft's attachment N (1-based, as `/attachments` numbers them).
        case detach(Int)
        /// `/detach all`: remove every attachment.
        case detachAll
        /// `/attachments`: list the attachments with their state.
        case list
        /// A `/detach` whose argument is not a number or `all` (the argument as typed);
        /// ``resolve(_:count:empty:)`` says what is.
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
        guard let number = Int(argument), (1...maxItemNumber).contains(number) else { return .invalid(argument) }
        return .detach(number)
    }

    /// What a draft command does to a list of `count` attachments.
    public enum DraftAction: Sendable, Hashable {
        /// List them in the status line.
        case list
        /// Remove the one at this index (0-based).
        case remove(Int)
        /// Remove every one (there is at least one).
        case removeAll
        /// Nothing to do: the sentence says why (naming the valid numbers).
        case refuse(String)
    }

    /// `command` against a list of `count` attachments, for both rooms: a number out of range
    /// or an argument that is no number is refused with a sentence naming the valid range;
    /// `empty` is the sentence for a list with nothing in it.
    public static func resolve(_ command: DraftCommand, count: Int, empty: String) -> DraftAction {
        let range = count == 1 ? "/detach 1" : "/detach 1 to /detach \(count)"
        switch command {
        case .list:
            return .list
        case .detachAll:
            return count == 0 ? .refuse(empty) : .removeAll
        case .detach(let number):
            if count == 0 { return .refuse(empty) }
            return number <= count
                ? .remove(number - 1)
                : .refuse("There is no attachment \(number); \(range) or /detach all (/attachments lists them).")
        case .invalid(let argument):
            if count == 0 { return .refuse(empty) }
            let shown = argument.isEmpty ? "" : " “\(DisplayWidth.truncate(TerminalText.oneLine(argument), to: 20))”"
            return .refuse("Say which attachment\(shown): \(range), or /detach all.")
        }
    }

    /// `1 bad.png failed: … · 2 notes.txt uploaded` for the status line, or a sentence when the
    /// draft has no attachments.
    public static func listing(_ items: [AgentAttachmentItem]) -> String {
        guard !items.isEmpty else { return "The draft has no attachments." }
        return items.enumerated().map { "\($0.offset + 1) \(describe($0.element))" }.joined(separator: " · ")
    }

    /// The sentence for an ordinary chat with no staged attachment.
    public static let noneStaged = "No file is attached; /attach PATH attaches one to the next message."

    /// `1 notes.txt (1.2 KB text) · 2 cat.png (40 KB image)` for the status line: an ordinary
    /// chat's staged attachments, numbered as `/detach` takes them.
    public static func stagedListing(_ staged: [ChatAttachment]) -> String {
        guard !staged.isEmpty else { return noneStaged }
        return "Attached: "
            + staged.enumerated().map {
                "\($0.offset + 1) \(TerminalText.oneLine($0.element.name)) (\(detail($0.element)))"
            }.joined(separator: " · ") + " · /detach N removes"
    }

    /// `1.2 KB text`, `40 KB image`.
    public static func detail(_ attachment: ChatAttachment) -> String {
        "\(size(attachment.size)) \(attachment.kind == .image ? "image" : "text")"
    }

    /// `812 B`, `1.2 KB`, `40 KB`, `3.5 MB` (1 KB is 1,024 bytes).
    public static func size(_ bytes: Int) -> String {
        guard bytes >= 1_024 else { return "\(bytes) B" }
        let units = ["KB", "MB", "GB"]
        var value = Double(bytes) / 1_024
        var unit = 0
        while value >= 1_024, unit < units.count - 1 {
            value /= 1_024
            unit += 1
        }
        let tenths = (value * 10).rounded(.down) / 10
        let shown = tenths < 10 ? String(format: "%.1f", tenths) : String(Int(value))
        return "\(shown) \(units[unit])"
    }

    /// The most rows the staged list takes under the composer.
    public static let maxStagedRows = 3

    /// The rows drawn under an ordinary chat's composer for `staged`, each at most `width`
    /// columns: `1 notes.txt · 1.2 KB text`, numbered as `/detach` takes them. A long name is
    /// cut with an ellipsis so its number and size stay in view. More than ``maxStagedRows``
    /// files: the last row says how many more and how to list them. Names are made one line
    /// and safe for the terminal.
    public static func stagedRows(_ staged: [ChatAttachment], width: Int) -> [String] {
        guard !staged.isEmpty, width > 0 else { return [] }
        let shown = staged.count <= maxStagedRows ? staged.count : maxStagedRows - 1
        var rows = staged.prefix(shown).enumerated().map { index, attachment in
            row(number: index + 1, name: attachment.name, detail: detail(attachment), width: width)
        }
        if shown < staged.count {
            rows.append(DisplayWidth.truncate("+\(staged.count - shown) more · /attachments lists them", to: width))
        }
        return rows
    }

    /// `3 name · detail` in `width` columns, the name cut first.
    static func row(number: Int, name: String, detail: String, width: Int) -> String {
        let head = "\(number) "
        let tail = " · \(detail)"
        let safeName = TerminalText.oneLine(name)
        let room = width - DisplayWidth.of(head) - DisplayWidth.of(tail)
        guard room >= 4 else { return DisplayWidth.truncate(head + safeName + tail, to: width) }
        return head + DisplayWidth.truncate(safeName, to: room) + tail
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
