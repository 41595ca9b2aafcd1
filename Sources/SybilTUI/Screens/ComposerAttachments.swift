import SybilClient

/// The composer's `/attach PATH` lines: each names a file to send with the message (the Agent
/// room uploads it first); the other lines are the message. And how an attachment's progress
/// reads in the status line. Pure.
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

    /// `build.log 40%`, `photo.heic preparing`, `a.pdf failed: …` for the status line.
    public static func describe(_ item: AgentAttachmentItem) -> String {
        let state =
            switch item.state {
            case .preparing: "preparing"
            case .staged: "waiting to upload"
            case .uploading(let progress): progress.map { "\(Int($0 * 100))%" } ?? "uploading"
            case .ready: "uploaded"
            case .failed(let failure): "failed: \(failure)"
            case .interrupted: "interrupted (r retries)"
            }
        return "\(item.fileName) \(state)"
    }
}
