import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import Testing

/// A request's route is resolved once, from its head: the transport asks the handler for it
/// once per request and puts every later question — the body limit, an answer from the head,
/// the body consumer, an answer given at once, the answer on a task — to that route. Over real
/// sockets, with pipelined requests of every kind.
@Suite("One route per request", .timeLimit(.minutes(1)))
struct RouteResolutionTests {
    @Test func eachRequestIsResolvedOnceAndItsOwnRouteAnswersIt() async throws {
        let handler = ResolutionCountingHandler()
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: handler)
        let client = try RawClient(port: server.port)
        client.send(
            "GET /now HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /task HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /task HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                + "POST /consume HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
                + "POST /refused HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nno"
                + "GET /task HTTP/1.1\r\nHost: x\r\n\r\n")
        let answers = await blocking {
            (0..<6).compactMap { _ in
                client.readResponse().map { "\($0.status) \(String(decoding: $0.body, as: UTF8.self))" }
            }
        }
        // Each answer names the route that gave it (its number, then the head it was resolved
        // for): each request's own, in order, and no two requests share one.
        let routes = answers.map { $0.split(separator: " ", maxSplits: 2).last.map(String.init) ?? "" }
        #expect(
            routes == [
                "GET /now at once", "GET /task", "POST /task abc", "POST /consume consumed 3",
                "POST /refused from the head", "GET /task",
            ])
        #expect(answers.map { $0.prefix(3) } == ["200", "200", "200", "200", "403", "200"])
        let serials = Set(answers.compactMap { Int($0.split(separator: " ")[1]) })
        #expect(serials == Set(1...6))
        #expect(handler.resolutions == 6, "one resolution per request, however many questions each was asked")
        await server.shutdown(grace: .zero)
    }
}

/// Resolves each head into a route numbered in order, counting resolutions: `/now` is answered
/// at once, `/consume` takes its body through a consumer, `/refused` is answered from its
/// head; the rest on a task. Every answer says which route gave it.
private final class ResolutionCountingHandler: HTTPHandler {
    private let count = Locked(0)

    var resolutions: Int { count.withLock { $0 } }

    func route(for head: HTTPRequestHead) -> any HTTPRoute {
        let serial = count.withLock { count in
            count += 1
            return count
        }
        return CountedRoute(serial: serial, method: head.method, path: head.path)
    }

    func refusal(status: Int, message: String) -> HTTPServerResponse {
        HTTPServerResponse(status: status, body: .bytes(Array(message.utf8)))
    }
}

/// One resolved request: its number and the head it was resolved for.
private struct CountedRoute: HTTPRoute {
    let serial: Int
    let method: String
    let path: String

    func bodyLimit(for head: HTTPRequestHead) -> Int { 1 << 10 }

    func headResponse(for head: HTTPRequestHead) -> HTTPServerResponse? {
        path == "/refused" ? answer(403, "from the head") : nil
    }

    func bodyConsumer(for head: HTTPRequestHead) -> (any HTTPRequestBodyConsumer)? {
        path == "/consume" ? CountingConsumer() : nil
    }

    func immediateResponse(to request: HTTPServerRequest) -> HTTPServerResponse? {
        path == "/now" ? answer(200, "at once") : nil
    }

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        if let consumer = request.consumedBody as? CountingConsumer {
            return answer(200, "consumed \(consumer.received)")
        }
        return answer(200, String(decoding: request.body, as: UTF8.self))
    }

    private func answer(_ status: Int, _ text: String) -> HTTPServerResponse {
        let words = ["\(serial) \(method) \(path)", text].filter { !$0.isEmpty }
        return HTTPServerResponse(status: status, body: .bytes(Array(words.joined(separator: " ").utf8)))
    }
}

/// Counts the body bytes it is given.
private struct CountingConsumer: HTTPRequestBodyConsumer {
    var received = 0

    mutating func consume(_ bytes: [UInt8]) throws(HTTPBodyRefusal) { received += bytes.count }

    mutating func finish() throws(HTTPBodyRefusal) {}
}
