import SybilClient
import SybilCore

/// The text `sybil ask` sends, from its words and standard input: with no words (or `-`) and
/// standard input not a terminal, the question is standard input; with words and piped input,
/// the words, a blank line and the piped text (as `llm` does). Checked against the limit
/// (``maximumBytes``, or the profile's `max_input_bytes`) before anything is sent.
enum AskInput {
    /// The most bytes of UTF-8 a question may have, words and piped text together, unless the
    /// profile says otherwise (1 MiB).
    static let maximumBytes = 1 << 20

    /// The most bytes a question may have, and the profile that set it (`nil` for the default).
    struct Limit: Equatable {
        var bytes: Int
        var profile: String?

        /// ``AskInput/maximumBytes``.
        static let standard = Limit(bytes: AskInput.maximumBytes, profile: nil)

        /// The limit of `profile`: its `max_input_bytes`, else the standard one.
        static func of(_ profile: ClientProfile?) -> Limit {
            guard let profile, let bytes = profile.maxInputBytes else { return .standard }
            return Limit(bytes: bytes, profile: profile.name)
        }
    }

    /// Why the input cannot be sent.
    enum Refusal: Error, Equatable {
        /// Over the limit: the bytes counted.
        case tooLarge(bytes: Int, limit: Limit = .standard)
        /// Standard input is not UTF-8 text.
        case notText
        /// Standard input could not be read: the reason.
        case unreadable(String)

        /// The exit status: 65 for data refused, 66 for an unreadable input.
        var exitCode: ExitCode {
            switch self {
            case .tooLarge, .notText: .invalidData
            case .unreadable: .noInput
            }
        }

        /// One sentence for standard error.
        var message: String {
            switch self {
            case .tooLarge(let bytes, let limit):
                if let profile = limit.profile {
                    "the question is \(bytes) bytes, over the limit of \(limit.bytes) bytes of profile "
                        + "\(TerminalText.oneLine(profile)) (max_input_bytes in config.toml); send a shorter text"
                } else {
                    "the question is \(bytes) bytes, over the limit of \(limit.bytes) bytes (1 MiB); "
                        + "send a shorter text"
                }
            case .notText: "standard input is not UTF-8 text; pipe text into sybil ask"
            case .unreadable(let reason): "\(reason); pipe the question in again or give it as arguments"
            }
        }
    }

    /// Whether the question is read from standard input alone: no words, or just `-`.
    static func readsOnlyInput(_ words: [String]) -> Bool {
        words.isEmpty || words == ["-"]
    }

    /// The question for `words` and `piped` (standard input's bytes, `nil` when it is a
    /// terminal and was not read); `nil` when there is no question at all.
    static func question(words: [String], piped: [UInt8]?, limit: Limit = .standard) -> Result<String?, Refusal> {
        let joined = words.joined(separator: " ")
        let typed = readsOnlyInput(words) || joined.allSatisfy(\.isWhitespace) ? "" : joined
        var text = typed
        if let piped, !piped.isEmpty {
            guard let input = String(validating: piped, as: UTF8.self) else { return .failure(.notText) }
            if !input.allSatisfy(\.isWhitespace) {
                text = typed.isEmpty ? input : typed + "\n\n" + input
            }
        }
        guard text.utf8.count <= limit.bytes else { return .failure(.tooLarge(bytes: text.utf8.count, limit: limit)) }
        return .success(text.allSatisfy(\.isWhitespace) ? nil : text)
    }

    /// Reads standard input through `io`, keeping at most one byte past the limit plus
    /// `reserved` (enough to know it is too long) and counting the rest; the count is what a
    /// refusal names.
    static func read(_ io: CommandIO, reserved: Int, limit: Limit = .standard)
        -> Result<(bytes: [UInt8], total: Int), Refusal>
    {
        var kept: [UInt8] = []
        var total = 0
        let keep = limit.bytes + 1
        do {
            try io.readChunks(nil) { chunk in
                total += chunk.count
                if kept.count < keep { kept.append(contentsOf: chunk.prefix(keep - kept.count)) }
            }
        } catch {
            return .failure(.unreadable("\(error)"))
        }
        // With nothing piped the words alone are checked, by ``question(words:piped:limit:)``.
        if total > 0, total + reserved > limit.bytes {
            return .failure(.tooLarge(bytes: total + reserved, limit: limit))
        }
        return .success((kept, total))
    }
}
