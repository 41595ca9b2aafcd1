import Foundation
import SybilCore
import SybilHTTP
import SybilWire

/// Answers the Agent room's turns with a real model (`sybil serve --upstream URL
/// --upstream-model M`): the room's recent visible history, oldest first, goes to the
/// upstream's `POST /v1/chat/completions` (not streamed) with the upstream key, and the first
/// choice's text is the agent's reply. A phone or the app following the room talks to that
/// model. A failed answer is said in the room, so a turn never stays pending forever.
struct AgentUpstreamResponder: Sendable {
    /// The most visible messages sent as context.
    static let maximumHistory = 40
    /// The largest upstream answer read.
    static let maximumAnswerBytes = 4 << 20
    /// What the model is told it is.
    static let systemPrompt =
        "You are Sybil Agent, answering in a shared chat room. Reply in the language of the last message."

    let base: URL
    let model: String
    let key: String?
    let http: any HTTPClient

    /// The reply to the conversation `history` (oldest first, the turn's message last).
    func reply(to history: [AgentRoomMessage]) async -> String {
        let visible = history.filter { $0.isVisible && ($0.role == .user || $0.role == .assistant) }
            .suffix(Self.maximumHistory)
        var messages: [JSONValue] = [["role": "system", "content": .string(Self.systemPrompt)]]
        for message in visible {
            messages.append(["role": .string(message.role.rawValue), "content": .string(message.text)])
        }
        let request = UpstreamAnswer.completionRequest(base: base, model: model, key: key, messages: messages)
        do {
            let response = try await http.send(request)
            let bytes = try await response.collect(limit: Self.maximumAnswerBytes + 1)
            guard bytes.count <= Self.maximumAnswerBytes else {
                return "The upstream model's answer was larger than \(Self.maximumAnswerBytes) bytes."
            }
            guard response.head.status == 200 else {
                let message = (try? JSONReader().parse(bytes)).flatMap { try? APIErrorBody.decode($0, at: .root) }?
                    .message
                return "The upstream model could not answer (HTTP \(response.head.status))"
                    + (message.map { ": \(TerminalText.oneLine($0))" } ?? ".")
            }
            return try Self.text(of: JSONReader().parse(bytes))
        } catch {
            // The platform's error names the upstream's address: the room gets a sentence only.
            return "The upstream model could not be reached."
        }
    }

    /// `choices[0].message.content` of a chat completion.
    static func text(of value: JSONValue) throws(JSONError) -> String {
        let object = try JSONObjectReader(value, at: .root)
        let choices = try object.array("choices")
        guard let first = choices.first else {
            throw .contract(JSONPath.root.appending(key: "choices"), "expected at least one choice")
        }
        let choice = try JSONObjectReader(first, at: JSONPath.root.appending(key: "choices").appending(index: 0))
        let message = try JSONObjectReader(
            try choice.value("message"),
            at: JSONPath.root.appending(key: "choices").appending(index: 0).appending(key: "message"))
        return try message.nullableString("content") ?? ""
    }
}
