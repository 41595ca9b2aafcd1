import Foundation
import SybilCore
import SybilWire
import Testing

/// Decodes every fenced example in `docs/api/*.md`, so the contracts cannot drift from the
/// decoders. The fence's second word says what decodes the example (see docs/api/README.md).
@Suite("API documentation examples", .timeLimit(.minutes(2)))
struct APIDocsTests {
    struct Example: CustomStringConvertible, Sendable {
        var file: String
        var line: Int
        var language: String
        var tag: String?
        var body: String

        var description: String { "\(file):\(line) \(language) \(tag ?? "(no tag)")" }
    }

    static let docsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/api")

    /// The fenced blocks of every page, with their language and tag.
    static func examples() throws -> [Example] {
        let names = try FileManager.default.contentsOfDirectory(atPath: docsDirectory.path)
            .filter { $0.hasSuffix(".md") }.sorted()
        var examples: [Example] = []
        for name in names {
            let text = try String(contentsOf: docsDirectory.appendingPathComponent(name), encoding: .utf8)
            var current: Example?
            var lines: [String] = []
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.hasPrefix("```") {
                    if var open = current {
                        open.body = lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
                        examples.append(open)
                        current = nil
                    } else {
                        let words = line.dropFirst(3).split(separator: " ").map(String.init)
                        current = Example(
                            file: name, line: number + 1, language: words.first ?? "", tag: words.dropFirst().first,
                            body: "")
                        lines = []
                    }
                } else if current != nil {
                    lines.append(String(line))
                }
            }
            #expect(current == nil, "\(name): a fence is not closed")
        }
        return examples
    }

    static let jsonTags: Set<String> = [
        "envelope", "older-page", "thread-page", "live-overlay", "live-overlay-delta", "error-body", "chat-chunk",
        "value",
    ]
    static let sseTags: Set<String> = ["openai-stream", "workspace-events"]

    @Test func everyPageHasExamplesAndEveryExampleHasAKnownTag() throws {
        let examples = try Self.examples()
        for page in ["README.md", "chats.md", "workspaces.md", "agent-room.md", "records.md"] {
            #expect(examples.contains { $0.file == page }, "\(page) has no examples")
        }
        for example in examples where example.language == "json" || example.language == "sse" {
            let known = example.language == "json" ? Self.jsonTags : Self.sseTags
            #expect(example.tag.map(known.contains) == true, "\(example): unknown or missing tag")
        }
    }

    @Test func everyJSONExampleDecodes() throws {
        let examples = try Self.examples().filter { $0.language == "json" }
        #expect(examples.count >= 25)
        for example in examples {
            do {
                try Self.decodeJSON(example)
            } catch {
                Issue.record("\(example): \(error)")
            }
        }
    }

    @Test func everyEventStreamExampleDecodes() throws {
        let examples = try Self.examples().filter { $0.language == "sse" }
        #expect(examples.count >= 3)
        for example in examples {
            var parser = EventStreamParser()
            let events = try parser.feed(Array(example.body.utf8))
            #expect(!events.isEmpty, "\(example): no events")
            do {
                try Self.checkEvents(events, tag: example.tag ?? "", example: example)
            } catch {
                Issue.record("\(example): \(error)")
            }
        }
    }

    @Test func theEnvelopeExamplesKeepContractOrder() throws {
        for example in try Self.examples() where example.tag == "envelope" {
            let value = try JSONReader().parse(example.body)
            let envelope = try WorkspaceChatLoadEnvelope.decode(value, at: .root)
            #expect(envelope.jsonValue == value, "\(example): members are in contract order with normalised values")
        }
    }

    private static func decodeJSON(_ example: Example) throws {
        let value = try JSONReader().parse(example.body)
        switch example.tag {
        case "envelope": _ = try WorkspaceChatLoadEnvelope.decode(value, at: .root)
        case "older-page": _ = try WorkspaceChatPage.decode(value, at: .root, kind: .olderPage)
        case "thread-page": _ = try WorkspaceChatPage.decode(value, at: .root, kind: .threadPage)
        case "live-overlay": _ = try LiveOverlay.decode(value, at: .root)
        case "live-overlay-delta": _ = try LiveOverlayDelta.decode(value, at: .root)
        case "error-body": _ = try APIErrorBody.decode(value, at: .root)
        case "chat-chunk": _ = try ChatCompletionChunk.decode(value, at: .root)
        case "value": break
        default: Issue.record("\(example): unknown tag")
        }
    }

    private static func checkEvents(_ events: [ServerSentEvent], tag: String, example: Example) throws {
        switch tag {
        case "openai-stream":
            let decoded = try events.map { event throws(JSONError) in try OpenAIStreamEvent.decode(event) }
            for event in decoded.dropLast() {
                guard case .chunk = event else {
                    Issue.record("\(example): only the last event may end the stream, got \(event)")
                    return
                }
            }
            switch decoded.last {
            case .done?, .error?: break
            default: Issue.record("\(example): the stream must end with [DONE] or an error frame")
            }
        case "workspace-events":
            // Every event decodes, and each delta applies to the overlay the example showed before it.
            var overlay: LiveOverlay?
            for event in events {
                switch try WorkspaceEvent.decode(name: event.type, data: event.dataBytes) {
                case .overlay(let whole): overlay = whole
                case .overlayDelta(let delta):
                    overlay = overlay.flatMap { delta.applied(to: $0) }
                    if overlay == nil { Issue.record("\(example): a delta that does not apply") }
                default: break
                }
            }
        default:
            Issue.record("\(example): unknown tag")
        }
    }
}
