import SybilCore
import SybilWire

/// The reference server's deterministic agent: the same seed and prompt always give the same
/// reply, thinking, tool activity and (when the prompt asks for one) subagent thread. Prompts
/// can ask for failures so clients can rehearse them: `[[error]]` ends a stream with an error
/// frame, `[[interrupt]]` ends it without `[DONE]`.
struct ScriptedAgent: Sendable {
    /// How a scripted reply ends.
    enum Ending: Sendable, Hashable {
        case complete
        /// An error frame after this many tokens.
        case error(afterTokens: Int)
        /// The stream stops after this many tokens, with no error and no `[DONE]`.
        case interrupt(afterTokens: Int)
    }

    /// One reply.
    struct Reply: Sendable, Hashable {
        var thinking: String
        var activity: String
        /// The whole reply (what ``tokens`` join to).
        var text: String
        var subagent: [String]?
        var ending: Ending

        /// The reply's streaming tokens: each word with the space after it (made on demand; the
        /// Agent room stores only the text).
        var tokens: [String] { ScriptedAgent.tokens(text) }
    }

    let seed: UInt64

    private static let openings = [
        "Here is what I found.", "Short answer first.", "I looked into it.", "Good question.",
        "Let me walk through it.", "This one is quick.",
    ]
    private static let middles = [
        "The first call after a pause wakes the service, so it can take a few seconds.",
        "Retries reuse the same request id, so nothing is sent twice.",
        "The timeline keeps the newest window and loads older pages on demand.",
        "Each message is saved on the device before it is sent.",
        "A stalled stream is cut off and marked as interrupted, keeping the partial text.",
        "The overlay shows the running turn until history settles it.",
    ]
    private static let closings = [
        "Tell me if you want the details.", "That should be all you need.", "Happy to dig deeper.",
        "Let me know how it goes.",
    ]
    private static let tools = ["rg", "swift build", "cat", "git log --oneline", "ls"]

    /// The reply to `prompt`.
    func reply(to prompt: String) -> Reply {
        let random = SeededRandomSource(seed: seed ^ FNV1a64.hash(utf8: prompt))
        func pick(_ options: [String]) -> String { options[Int(random.next(below: UInt64(options.count)))] }
        let topic = Self.topic(of: prompt)
        var text = pick(Self.openings) + " " + pick(Self.middles)
        if !topic.isEmpty { text += " You asked about \u{201C}\(topic)\u{201D}." }
        text += " " + pick(Self.closings)
        let ending: Ending
        // Lowercasing never makes or removes a "[", so a prompt without "[[" asks for neither.
        if Self.contains(prompt.utf8, "[[".utf8) {
            let lowered = prompt.lowercased()
            let count = Self.tokens(text).count
            ending =
                lowered.contains("[[error]]")
                ? .error(afterTokens: min(3, count))
                : lowered.contains("[[interrupt]]") ? .interrupt(afterTokens: min(3, count)) : .complete
        } else {
            ending = .complete
        }
        let subagent: [String]? =
            Self.mentionsSubagent(prompt)
            ? ["open the files the question names", "compare them with the last working version", "report back"]
            : nil
        return Reply(
            thinking: "Reading the question" + (topic.isEmpty ? "." : ": \(topic)"),
            activity: "\(pick(Self.tools)) \(topic.split(separator: " ").first.map(String.init) ?? "Sources")",
            text: text, subagent: subagent, ending: ending)
    }

    /// Whether `prompt` lowercased contains "subagent". An ASCII prompt is compared byte by
    /// byte (lowercasing ASCII only folds A–Z); any other is lowercased first, since some
    /// letters outside ASCII lowercase to ASCII ones.
    static func mentionsSubagent(_ prompt: String) -> Bool {
        let utf8 = prompt.utf8
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return prompt.lowercased().contains("subagent") }
        return contains(utf8.lazy.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }, "subagent".utf8)
    }

    /// Whether `bytes` contain `needle` as a run.
    private static func contains(_ bytes: some Collection<UInt8>, _ needle: String.UTF8View) -> Bool {
        let pattern = Array(needle)
        let haystack = Array(bytes)
        guard haystack.count >= pattern.count else { return false }
        for start in 0...(haystack.count - pattern.count)
        where haystack[start] == pattern[0] && haystack[start..<start + pattern.count].elementsEqual(pattern) {
            return true
        }
        return false
    }

    /// The first words of a prompt, at most 60 characters, on one line.
    static func topic(of prompt: String) -> String {
        asciiTopic(of: prompt) ?? characterTopic(of: prompt)
    }

    /// ``topic(of:)`` read character by character (any prompt).
    static func characterTopic(of prompt: String) -> String {
        let words = prompt.split(whereSeparator: { $0.isWhitespace || $0.isNewline })
            .filter { !$0.hasPrefix("[[") }
        var topic = ""
        for word in words {
            if topic.count + (topic.isEmpty ? 0 : 1) + word.count > 60 { break }
            topic += topic.isEmpty ? String(word) : " " + word
        }
        return topic
    }

    /// ``topic(of:)`` of an ASCII prompt, read byte by byte (`nil` for any other): there every
    /// byte is one character (CR LF is one, but both are whitespace, which only separates),
    /// and the whitespace is tab, LF, VT, FF, CR and space.
    static func asciiTopic(of prompt: String) -> String? {
        prompt.utf8.withContiguousStorageIfAvailable { bytes -> String? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            var topic: [UInt8] = []
            var index = 0
            while index < bytes.count {
                if bytes[index] == 0x20 || (0x09...0x0D).contains(bytes[index]) {
                    index += 1
                    continue
                }
                var end = index
                while end < bytes.count && !(bytes[end] == 0x20 || (0x09...0x0D).contains(bytes[end])) { end += 1 }
                let word = bytes[index..<end]
                index = end
                if word.count >= 2 && word[word.startIndex] == 0x5B && word[word.startIndex + 1] == 0x5B { continue }
                if topic.count + (topic.isEmpty ? 0 : 1) + word.count > 60 { break }
                if !topic.isEmpty { topic.append(0x20) }
                topic.append(contentsOf: word)
            }
            return String(decoding: topic, as: UTF8.self)
        } ?? nil
    }

    /// Splits `text` into streaming tokens: each word with the space after it.
    static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        for character in text {
            current.append(character)
            if character == " " {
                tokens.append(current)
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    /// `tokens` cut by a request's limits: before the first stop sequence found in the first
    /// `maxTokens` tokens (`stop`), else after `maxTokens` tokens when there are more (`length`),
    /// else whole (`stop`). A token cut by a stop sequence keeps the text before it.
    static func limit(_ tokens: [String], maxTokens: Int?, stop: [String]) -> (
        tokens: [String], finish: ChatCompletionChunk.FinishReason
    ) {
        let allowed = maxTokens.map { Array(tokens.prefix($0)) } ?? tokens
        let text = allowed.joined()
        if let cut = stop.compactMap({ text.firstRange(of: $0)?.lowerBound }).min() {
            return (Self.tokens(String(text[..<cut])), .stop)
        }
        return (allowed, allowed.count < tokens.count ? .length : .stop)
    }

    /// Prompt tokens by the documented rule: the whitespace-separated words of every message's
    /// text, plus one per message for its role.
    static func promptTokens(_ texts: [String]) -> Int {
        texts.reduce(0) { sum, text in
            sum + 1 + text.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).count
        }
    }
}
