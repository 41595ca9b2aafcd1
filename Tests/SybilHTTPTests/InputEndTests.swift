import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import Testing

/// The end of a client's input over real sockets: TCP gives the same FIN for a client that
/// half-closed after its requests and for one that closed and left. A handler waiting for news
/// (a long poll) ends its wait at once on that FIN and answers with what it has: the half-closed
/// client receives that answer (and every other already asked for, in order), and the handler
/// of a client that left ends instead of holding on until its wait runs out. Every wait ends on
/// a signal the handler gives, never on a sleep.
@Suite("End of a client's input", .timeLimit(.minutes(1)))
struct InputEndTests {
    @Test func aHalfClosedClientGetsTheLongPollsAnswerAtOnce() async throws {
        let handler = LongPollHandler()
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: handler)
        let client = try RawClient(port: server.port)
        client.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\nGET /poll HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await handler.changed.wait(until: { handler.counts.waiting == 1 }))
        client.shutdownWrite()
        let answers = await blocking {
            (0..<2).compactMap { _ in client.readResponse().map { String(decoding: $0.body, as: UTF8.self) } }
        }
        // The poll answers with what it has: nothing new; the connection closes after it.
        #expect(answers == ["echo", "nothing new"])
        #expect(await blocking { client.readToEnd() }.isEmpty)
        #expect(handler.counts.cancelled == 0, "the answer was given, not cut off")
        await server.shutdown(grace: .zero)
    }

    @Test func theEndOfInputBehindRequestsNotReadYetEndsTheWaitToo() async throws {
        let handler = LongPollHandler()
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: handler)
        let client = try RawClient(port: server.port)
        // The second request's head is read ahead, so the connection is not read while the
        // poll waits: the half-close behind it is reported all the same.
        client.send("GET /poll HTTP/1.1\r\nHost: x\r\n\r\nGET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await handler.changed.wait(until: { handler.counts.waiting == 1 }))
        client.send("GET /poll HTTP/1.1\r\nHost: x\r\n\r\n")
        client.shutdownWrite()
        let answers = await blocking {
            (0..<3).compactMap { _ in client.readResponse().map { String(decoding: $0.body, as: UTF8.self) } }
        }
        #expect(answers == ["nothing new", "echo", "nothing new"])
        #expect(await blocking { client.readToEnd() }.isEmpty)
        #expect(handler.counts.cancelled == 0)
        await server.shutdown(grace: .zero)
    }

    @Test func theLongPollOfAClientThatClosedEndsAtOnce() async throws {
        let handler = LongPollHandler()
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: handler)
        let client = try RawClient(port: server.port)
        client.send("GET /poll HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await handler.changed.wait(until: { handler.counts.waiting == 1 }))
        #expect(server.statistics.runningTasks == 1)
        client.close()
        // Its wait would last for ever: the FIN ends it, and the handler with it.
        #expect(await handler.changed.wait(until: { handler.counts.ended == 1 }))
        #expect(handler.counts.newsArrived == 0)
        await server.shutdown(grace: .zero)
        #expect(server.statistics.runningTasks == 0)
    }

    @Test func aRequestOutsideAServerHasAnInputThatNeverEnds() {
        #expect(HTTPServerRequest(method: "GET", target: "/poll").inputEnd.hasEnded == false)
    }
}

/// `/poll` waits for news that never comes unless the client's input ends first, then answers
/// `nothing new`; `/echo` answers at once. Steps are counted and signalled on ``changed``.
private final class LongPollHandler: HTTPHandler, HTTPRoute {
    struct Counts {
        var waiting = 0
        var newsArrived = 0
        var cancelled = 0
        var ended = 0
    }

    let changed = ChangeSignal()
    private let state = Locked(Counts())
    /// The news the polls wait for; nothing ever fires it.
    private let news = GenerationSignal()

    var counts: Counts { state.withLock { $0 } }

    func bodyLimit(for head: HTTPRequestHead) -> Int { 1 << 10 }

    func refusal(status: Int, message: String) -> HTTPServerResponse {
        HTTPServerResponse(status: status, body: .bytes(Array(message.utf8)))
    }

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard request.path == "/poll" else { return HTTPServerResponse(status: 200, body: .bytes(Array("echo".utf8))) }
        step { $0.waiting += 1 }
        let arrived = await request.inputEnd.unlessEnded { [news] in await news.wait(after: 0) }
        step {
            if arrived { $0.newsArrived += 1 }
            if Task.isCancelled { $0.cancelled += 1 }
            $0.ended += 1
        }
        return HTTPServerResponse(status: 200, body: .bytes(Array((arrived ? "news" : "nothing new").utf8)))
    }

    private func step(_ change: (inout Counts) -> Void) {
        state.withLock { change(&$0) }
        changed.notify()
    }
}
