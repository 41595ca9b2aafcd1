import Foundation
import SybilCore
import SybilHTTP
import SybilWire

/// Answers a web search with a real model (`sybil serve --upstream URL --upstream-model M`):
/// the query goes to the upstream's `POST /v1/chat/completions` (not streamed) with the
/// upstream key and a system prompt; the first choice's text is the answer. A chat completion
/// carries no sources, so the answer lists none (an empty array), rather than inventing them.
/// A failed answer is this server's own error (``UpstreamAnswer``), never the upstream's text
/// about its address.
struct WebSearchUpstream: Sendable {
    /// What the model is told.
    static let systemPrompt =
        "You answer web-search questions concisely, in the language of the question. "
        + "You cannot browse; say so when the answer needs current information."

    let base: URL
    let model: String
    let key: String?
    let http: any HTTPClient

    /// The answer to `query`, or the error to answer with.
    func answer(to query: String) async throws(APIError) -> WebSearchAnswer {
        let messages: [JSONValue] = [
            ["role": "system", "content": .string(Self.systemPrompt)], ["role": "user", "content": .string(query)],
        ]
        let request = UpstreamAnswer.completionRequest(base: base, model: model, key: key, messages: messages)
        let response: HTTPStreamingResponse
        do {
            response = try await http.send(request)
        } catch {
            throw UpstreamAnswer.failure(error, answerStarted: false)
        }
        let limit = UpstreamAnswer.maximumBodyBytes
        let bytes: [UInt8]
        do {
            bytes = try await response.collect(limit: limit + 1)
        } catch {
            throw UpstreamAnswer.failure(error, answerStarted: true)
        }
        guard bytes.count <= limit else {
            throw UpstreamAnswer.failed("The upstream model's answer was larger than \(limit) bytes.")
        }
        guard response.head.status == 200 else {
            throw UpstreamAnswer.failed(
                "The upstream model could not answer the web search (HTTP \(response.head.status)).")
        }
        let text: String
        do {
            text = try AgentUpstreamResponder.text(of: JSONReader().parse(bytes))
        } catch {
            throw UpstreamAnswer.failed("The upstream model's answer is not a chat completion: \(error).")
        }
        // The contract's limit holds for whatever the model says: cut at a character boundary.
        var answer = text
        if answer.utf8.count > WebSearchAnswer.maxAnswerBytes {
            answer = String(decoding: answer.utf8.prefix(WebSearchAnswer.maxAnswerBytes - 4), as: UTF8.self)
            while answer.utf8.count > WebSearchAnswer.maxAnswerBytes - 3 { answer.removeLast() }
            answer += "…"
        }
        if answer.allSatisfy(\.isWhitespace) { answer = "The upstream model gave no answer." }
        return WebSearchAnswer(answer: answer, sources: [])
    }
}
