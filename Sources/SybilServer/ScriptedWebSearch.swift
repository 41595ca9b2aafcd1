import SybilCore
import SybilWire

/// The reference server's deterministic web search: the same seed and query always give the
/// same answer and sources. Nothing is fetched; the answer says it is scripted, and each source
/// is an address under `scripted.example` (a name reserved for examples, RFC 2606) whose title
/// says it is not a real page, so no one mistakes the demo for a search.
struct ScriptedWebSearch: Sendable {
    /// How many sources a scripted answer lists.
    static let sourceCount = 3
    /// The host every scripted source points at.
    static let host = "scripted.example"

    private static let findings = [
        "The first call after a pause wakes the service, so it can take a few seconds.",
        "Retries reuse the same request id, so nothing is sent twice.",
        "Each message is saved on the device before it is sent.",
        "A stalled stream is cut off and marked as interrupted, keeping the partial text.",
    ]

    let seed: UInt64

    /// The answer to `query`.
    func answer(to query: String) -> WebSearchAnswer {
        let hash = seed ^ FNV1a64.hash(utf8: query)
        let random = SeededRandomSource(seed: hash)
        let finding = Self.findings[Int(random.next(below: UInt64(Self.findings.count)))]
        let topic = ScriptedAgent.topic(of: query)
        let about = topic.isEmpty ? "your search" : "\u{201C}\(topic)\u{201D}"
        let answer =
            "Scripted answer from the reference server (no web search was made) for \(about). \(finding)"
        let key = String(hash, radix: 16)
        let sources = (1...Self.sourceCount).map { index in
            WebSearchSource(
                title: "Scripted source \(index) for \(about) (not a real page)",
                url: "https://\(Self.host)/web-search/\(key)/\(index)")
        }
        return WebSearchAnswer(answer: answer, sources: sources)
    }
}
