import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import SybilWire
import Testing

/// A reply whose gateway cut it by UTF-16 code unit: the transport's decoder joins the pair
/// split between two chunks, and what it still holds when the stream ends reaches the reply
/// as U+FFFD, however the stream ends.
@Suite("Chat stream: surrogate pairs split between chunks", .timeLimit(.minutes(2)))
struct ChatStreamSplitSurrogateTests {
    private func service(_ http: StubHTTPClient) -> ChatStreamingService<ManualClock> {
        ChatStreamingService(
            baseURL: URL(string: "https://h")!, http: http, clock: ManualClock(), tokens: nil, gate: nil, model: "m")
    }

    private func deltas(_ body: String) async -> ([ChatDelta], (any Error)?) {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: body)
        var deltas: [ChatDelta] = []
        do {
            for try await delta in service(http).deltas(to: [ChatMessage(role: "user", content: "hi")]) {
                deltas.append(delta)
            }
            return (deltas, nil)
        } catch {
            return (deltas, error)
        }
    }

    private static func event(_ delta: String, finish: String? = nil) -> String {
        let reason = finish.map { #""\#($0)""# } ?? "null"
        return #"data: {"id":"c","choices":[{"index":0,"delta":{\#(delta)},"finish_reason":\#(reason)}]}"# + "\n\n"
    }

    @Test func aPairSplitBetweenTwoChunksReachesTheReplyWhole() async {
        let (deltas, error) = await deltas(
            Self.event(#""content":"Hi \ud83d""#) + Self.event(#""content":"\ude00 there""#)
                + Self.event("", finish: "stop") + "data: [DONE]\n\n")
        #expect(error == nil)
        #expect(deltas.map(\.text) == ["Hi ", "😀 there", ""])
    }

    @Test func aHalfStillHeldAtDoneIsAReplacementCharacter() async {
        let (deltas, error) = await deltas(Self.event(#""content":"end \ud83d""#) + "data: [DONE]\n\n")
        #expect(error == nil)
        #expect(deltas.map(\.text).joined() == "end \u{FFFD}")
    }

    @Test func aHalfStillHeldWhenTheBodyEndsIsAReplacementCharacterBeforeTheFailure() async {
        let (deltas, error) = await deltas(Self.event(#""reasoning_content":"hm \ud83e""#))
        #expect(error as? ChatStreamError == .interrupted)
        #expect(deltas.map(\.reasoning).joined() == "hm \u{FFFD}")
    }

    @Test func aHalfStillHeldBeforeAMalformedChunkIsAReplacementCharacterBeforeTheFailure() async {
        let (deltas, error) = await deltas(Self.event(#""content":"a\ud83d""#) + "data: {\"id\":\n\n")
        guard case .malformedChunk? = error as? ChatStreamError else {
            Issue.record("expected a malformed chunk, got \(String(describing: error))")
            return
        }
        #expect(deltas.map(\.text).joined() == "a\u{FFFD}")
    }
}
