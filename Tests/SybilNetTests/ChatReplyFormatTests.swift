import Foundation
import SybilHTTP
import SybilNet
import SybilTesting
import SybilWire
import Testing

/// How the transport tells an event stream from a whole document by the body's first bytes,
/// whichever read of the body they come in.
@Suite("chat reply format from the first bytes", .timeLimit(.minutes(1)))
struct ChatReplyFormatTests {
    let request = HTTPRequest(method: "POST", url: URL(string: "https://h/v1/chat/completions")!)
    static let document = #"{"choices":[{"message":{"content":"Ganz"},"finish_reason":"stop"}]}"#

    private func collect(_ http: StubHTTPClient) async -> (text: String, error: (any Error)?) {
        var text = ""
        do {
            for try await chunk in SSEChatTransport(http: http, clock: ManualClock()).chunks(for: request) {
                text += chunk.content
            }
            return (text, nil)
        } catch {
            return (text, error)
        }
    }

    /// A server that writes a blank line first, in a read of its own, then the document: the
    /// first byte that is not white space decides, not the first read.
    @Test(arguments: [[], [("Content-Type", "text/plain")]])
    func aDocumentAfterABlankLineInAReadOfItsOwnIsReadWhole(headers: [(String, String)]) async {
        let http = StubHTTPClient()
        let feed = http.respond(status: 200, headers: headers)
        http.body(feed).yield(Array("\r\n".utf8))
        http.body(feed).yield(Array(" ".utf8))
        http.body(feed).yield(Array(Self.document.utf8))
        http.body(feed).finish()
        let result = await collect(http)
        #expect(result.error == nil, "\(String(describing: result.error))")
        #expect(result.text == "Ganz")
    }

    /// Servers that label their event stream `application/json`: the events are read, not
    /// refused as a document that does not parse.
    @Test func eventsLabelledAsJSONAreReadAsEvents() async {
        for body in [
            chunkEvent("Hal") + chunkEvent("lo") + "data: [DONE]\n\n",
            "\n: keep-alive\n\n" + chunkEvent("Hal") + chunkEvent("lo") + "data: [DONE]\n\n",
        ] {
            let http = StubHTTPClient()
            http.respond(status: 200, headers: [("Content-Type", "application/json")], body: body)
            let result = await collect(http)
            #expect(result.error == nil, "\(String(describing: result.error))")
            #expect(result.text == "Hallo")
        }
    }

    /// What is read ahead to decide is bounded: past 64 KiB of white space the body is read as
    /// an event stream (whose blank lines it may be), so a document after that much white space
    /// is not held whole: it is a stream that ended without an event.
    @Test func leadingWhiteSpaceIsReadAheadOnlySoFar() async {
        let http = StubHTTPClient()
        let feed = http.respond(status: 200, headers: [])
        let blank = [UInt8](repeating: UInt8(ascii: "\n"), count: 1024)
        for _ in 0...64 { http.body(feed).yield(blank) }
        http.body(feed).yield(Array(Self.document.utf8))
        http.body(feed).finish()
        let result = await collect(http)
        #expect(result.error as? ChatStreamError == .interrupted)
        #expect(result.text.isEmpty)
    }
}
