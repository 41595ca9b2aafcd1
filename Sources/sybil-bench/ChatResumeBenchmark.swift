import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilStore
import SybilWire

// `resume`: what a dropped chat reply costs on the wire afterwards. The reference server runs in
// this process on loopback (a 5 ms pause between tokens, a long reply); a conversation of 20
// earlier messages (about 8 KiB of prompt) asks once through `ChatStreamingService`, whose
// connection is cut after a quarter of the reply's events. The client resumes with
// `Last-Event-ID`; counted are the bytes it sends (request line, header fields, body) and the
// body bytes it receives after the cut. The baseline, in the same run: a client without resume
// sends the whole request again and receives the whole reply again. The goal: none of the
// prompt re-sent and none of what already arrived received twice.

private let resumeBenchToken = "bench-token"

func benchmarkChatResume() async {
    var options = SybilServerOptions(token: resumeBenchToken)
    options.pace = .milliseconds(5)
    do {
        let server = try ReferenceServer(options: options)
        defer { Task { await server.shutdown() } }
        var messages: [ChatMessage] = []
        for turn in 0..<10 {
            let filler = String(repeating: "Earlier turn \(turn) talked about cold starts and retries. ", count: 7)
            messages.append(ChatMessage(role: "user", content: filler))
            messages.append(ChatMessage(role: "assistant", content: filler))
        }
        messages.append(
            ChatMessage(role: "user", content: "Subagent: explain how a resumed stream avoids sending twice"))
        // The uninterrupted reply: its events, to place the cut and check the result.
        let whole = ResumeBenchClient(cutAfterEvents: nil)
        let expected = try await replyText(messages, server: server, http: whole)
        let events = whole.receivedEvents
        let cutAt = max(1, events / 4)
        // The resuming client.
        let resuming = ResumeBenchClient(cutAfterEvents: cutAt)
        let text = try await replyText(messages, server: server, http: resuming)
        // The baseline: the cut client sends the same request again and reads the whole reply.
        let resend = ResumeBenchClient(cutAfterEvents: nil)
        _ = try await replyText(messages, server: server, http: resend)
        let promptBytes = ChatStreamingServiceBody.size(messages)
        let resumed = resuming.afterCut
        let baseline = (sent: resend.sent, received: resend.received)
        print(
            "resume after a drop at event \(cutAt) of \(events) (prompt \(promptBytes) B, reply \(whole.received) B): "
                + "sent \(resumed.sent) B (prompt bytes re-sent: \(resumed.sentBody) B), received \(resumed.received) B "
                + "(events received twice: \(resuming.repeatedEvents)); re-sending: sent \(baseline.sent) B, received "
                + "\(baseline.received) B; ratio \(format(Double(resumed.sent + resumed.received) / Double(baseline.sent + baseline.received) * 100, 1)) % "
                + "of re-sending; reply intact: \(text == expected)")
    } catch {
        caseFailed("resume: \(error)")
    }
}

private func replyText(_ messages: [ChatMessage], server: ReferenceServer, http: any HTTPClient) async throws
    -> String
{
    let tokens = TokenProvider(
        current: TokenLocation(store: InMemorySecretStore(["t": resumeBenchToken]), account: "t"))
    let service = ChatStreamingService(
        baseURL: server.baseURL, http: http, clock: ContinuousClock(), tokens: tokens, gate: nil,
        model: SybilServerOptions.scriptedModel)
    var text = ""
    for try await delta in service.reply(to: messages) { text += delta }
    return text
}

/// The request body `ChatStreamingService` sends for `messages`.
private enum ChatStreamingServiceBody {
    static func size(_ messages: [ChatMessage]) -> Int {
        let value: JSONValue = [
            "model": .string(SybilServerOptions.scriptedModel),
            "messages": .array(messages.map { ["role": .string($0.role), "content": .string($0.content)] }),
            "stream": true,
        ]
        return JSONWriter().bytes(from: value).count
    }
}

/// URLSession over loopback that counts what goes each way, and cuts the first event stream
/// after `cutAfterEvents` events (closing the connection) when asked to.
private final class ResumeBenchClient: HTTPClient {
    struct Counts {
        var sent = 0
        var sentBody = 0
        var received = 0
    }

    private struct State {
        var total = Counts()
        var afterCut = Counts()
        var cut = false
        var armed: Bool
        var events = 0
        var cutEventID: Int64 = 0
        var repeatedEvents = 0
    }

    private let inner = DefaultHTTPClient.make(redirects: .deliver)
    private let limit: Int?
    private let state: Locked<State>

    init(cutAfterEvents limit: Int?) {
        self.limit = limit
        state = Locked(State(armed: limit != nil))
    }

    var sent: Int { state.withLock { $0.total.sent } }
    var received: Int { state.withLock { $0.total.received } }
    var receivedEvents: Int { state.withLock { $0.events } }
    var afterCut: Counts { state.withLock { $0.afterCut } }
    /// Events received after the cut whose id the client already had.
    var repeatedEvents: Int { state.withLock { $0.repeatedEvents } }

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        var size = "\(request.method) \(request.url.path) HTTP/1.1\r\n".utf8.count + 2
        for field in request.headers { size += field.name.utf8.count + field.value.utf8.count + 4 }
        let body = request.body?.count ?? 0
        state.withLock { state in
            state.total.sent += size + body
            if state.cut {
                state.afterCut.sent += size + body
                state.afterCut.sentBody += body
            }
        }
        let response = try await inner.send(request)
        let cutting = state.withLock { state in
            defer { state.armed = false }
            return state.armed
        }
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let task = Task { [self, limit] in
            var parser = EventStreamParser()
            do {
                for try await bytes in response.body {
                    let ids = try parser.feed(bytes).map { Int64($0.lastEventId) ?? 0 }
                    let cutNow = state.withLock { state -> Bool in
                        state.total.received += bytes.count
                        if state.cut {
                            state.afterCut.received += bytes.count
                            state.repeatedEvents += ids.filter { $0 <= state.cutEventID }.count
                        }
                        state.events += ids.count
                        guard cutting, let limit, state.events >= limit else { return false }
                        state.cut = true
                        state.cutEventID = ids.max() ?? 0
                        return true
                    }
                    continuation.yield(bytes)
                    if cutNow {
                        continuation.finish(throwing: URLError(.networkConnectionLost))
                        return
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return HTTPStreamingResponse(head: response.head, body: stream)
    }
}
