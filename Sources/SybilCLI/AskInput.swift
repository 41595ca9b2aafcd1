/// The text `sybil ask` sends, from its words and standard input: with no words (or `-`) and
/// standard input not a terminal, the question is standard input; with words and piped input,
/// the words, a blank line and the piped text (as `llm` does). Checked against
/// ``maximumBytes`` before anything is sent.
enum AskInput {
    /// The most bytes of UTF-8 a question may have, words and piped text together (1 MiB).
    static let maximumBytes = 1 << 20

    /// Why the input cannot be sent.
    enum Refusal: Error, Equatable {
        /// Over ``maximumBytes``: the bytes counted.
        case tooLarge(bytes: Int)
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
            case .tooLarge(let bytes):
                "the question is \(bytes) bytes, over the limit of \(AskInput.maximumBytes) bytes (1 MiB); "
                    + "send a shorter text"
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
    static func question(words: [String], piped: [UInt8]?) -> Result<String?, Refusal> {
        let joined = words.joined(separator: " ")
        let typed = readsOnlyInput(words) || joined.allSatisfy(\.isWhitespace) ? "" : joined
        var text = typed
        if let piped, !piped.isEmpty {
            guard let input = String(validating: piped, as: UTF8.self) else { return .failure(.notText) }
            if !input.allSatisfy(\.isWhitespace) {
                text = typed.isEmpty ? input : typed + "\n\n" + input
            }
        }
        guard text.utf8.count <= maximumBytes else { return .failure(.tooLarge(bytes: text.utf8.count)) }
        return .success(text.allSatisfy(\.isWhitespace) ? nil : text)
    }

    /// Reads standard input through `io`, keeping at most one byte past ``maximumBytes`` plus
    /// `reserved` (enough to know it is too long) and counting the rest; the count is what a
    /// refusal names.
    static func read(_ io: CommandIO, reserved: Int) -> Result<(bytes: [UInt8], total: Int), Refusal> {
        var kept: [UInt8] = []
        var total = 0
        let keep = maximumBytes + 1
        do {
            try io.readChunks(nil) { chunk in
                total += chunk.count
                if kept.count < keep { kept.append(contentsOf: chunk.prefix(keep - kept.count)) }
            }
        } catch {
            return .failure(.unreadable("\(error)"))
        }
        if total + reserved > maximumBytes { return .failure(.tooLarge(bytes: total + reserved)) }
        return .success((kept, total))
    }
}
