/// A mistake on the command line; printed with a pointer to the command's help.
struct UsageError: Error, Equatable {
    let command: String
    let message: String

    /// `sybil debug sse: MESSAGE` + a hint line.
    var text: String {
        "\(command): \(message)\nRun '\(command) --help' for usage.\n"
    }
}

/// The question of `sybil ask` / `sybil quick`: the words joined by spaces, never blank.
func question(from words: [String], command: String) throws(UsageError) -> String {
    let question = words.joined(separator: " ")
    guard !question.allSatisfy(\.isWhitespace) else {
        throw UsageError(command: command, message: "needs a question, e.g. \(command) \"What is a cold start?\"")
    }
    return question
}
