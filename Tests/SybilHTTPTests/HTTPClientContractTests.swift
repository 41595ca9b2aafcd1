import Foundation
import SybilHTTP
import SybilTesting
import SybilURLSession
import Synchronization
import Testing

/// The HTTP clients the apps can use: the same contract over URLSession and our own sockets.
enum HTTPClientKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    case socket

    var testDescription: String { rawValue }

    func make(followRedirects: Bool = true) -> any HTTPClient {
        switch self {
        case .urlSession: URLSessionHTTPClient(followRedirects: followRedirects)
        case .socket: SocketHTTPClient(followRedirects: followRedirects)
        }
    }
}

@Suite("HTTP clients against a loopback server", .timeLimit(.minutes(2)))
struct HTTPClientContractTests {
    @Test(arguments: HTTPClientKind.allCases)
    func bodyChunksArriveAsTheServerSendsThem(_ kind: HTTPClientKind) async throws {
        let release = DispatchSemaphore(value: 0)
        let server = try LoopbackHTTPServer { _, connection in
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            connection.write("9\r\ndata: a\n\n\r\n")
            release.wait()  // the rest only after the test saw the first event
            connection.write("9\r\ndata: b\n\n\r\n0\r\n\r\n")
        }
        let client = kind.make()
        let response = try await client.send(HTTPRequest(url: APIEndpoint.url(base: server.url, path: "v1/stream")))
        #expect(response.head.status == 200)
        #expect(response.head.headers["content-type"] == "text/event-stream")
        var iterator = response.body.makeAsyncIterator()
        var first: [UInt8] = []
        while !String(decoding: first, as: UTF8.self).contains("data: a\n\n") {
            guard let chunk = try await iterator.next() else { break }
            first += chunk
        }
        #expect(String(decoding: first, as: UTF8.self) == "data: a\n\n", "the first event arrived on its own")
        release.signal()
        var rest: [UInt8] = []
        while let chunk = try await iterator.next() { rest += chunk }
        #expect(String(decoding: rest, as: UTF8.self) == "data: b\n\n")
    }

    @Test(arguments: HTTPClientKind.allCases)
    func requestContractHeadersAndBody(_ kind: HTTPClientKind) async throws {
        let server = try LoopbackHTTPServer { _, connection in
            connection.write("HTTP/1.1 201 Created\r\nContent-Length: 2\r\nRetry-After: 7\r\n\r\nok")
        }
        var headers = HTTPHeaders()
        headers.set("Authorization", "Bearer t0k3n")
        headers.set("Content-Type", "application/json")
        let request = HTTPRequest(
            method: "POST",
            url: APIEndpoint.url(base: server.url.appendingPathComponent("api"), path: "agent/messages"),
            headers: headers, body: Array(#"{"text":"hi"}"#.utf8))
        let response = try await kind.make().send(request)
        #expect(response.head.status == 201)
        #expect(response.head.headers["retry-after"] == "7")
        #expect(try await response.collect() == Array("ok".utf8))
        let received = try #require(server.received.first)
        #expect(received.requestLine == "POST /api/agent/messages HTTP/1.1")
        #expect(received.header("Authorization") == "Bearer t0k3n")
        #expect(received.body == Array(#"{"text":"hi"}"#.utf8))
    }

    @Test(arguments: HTTPClientKind.allCases)
    func aRefusedConnectionThrows(_ kind: HTTPClientKind) async throws {
        let refusing = try RefusingPort()
        let url = refusing.url.appendingPathComponent("healthz")
        await #expect(throws: (any Error).self) {
            _ = try await kind.make().send(HTTPRequest(url: url, timeout: .seconds(5)))
        }
        withExtendedLifetime(refusing) {}
    }
}

@Suite("API endpoints", .timeLimit(.minutes(2)))
struct APIEndpointTests {
    @Test func baseURLsKeepTheirPath() {
        let base = URL(string: "https://h/api")!
        #expect(APIEndpoint.url(base: base, path: "agent/messages").absoluteString == "https://h/api/agent/messages")
        #expect(
            APIEndpoint.url(base: URL(string: "https://h/api/")!, path: "/agent/messages").absoluteString
                == "https://h/api/agent/messages")
        #expect(APIEndpoint.url(base: URL(string: "https://h")!, path: "healthz").absoluteString == "https://h/healthz")
        #expect(
            APIEndpoint.url(base: base, path: "agent/messages", query: [("after", "c 1&2"), ("limit", "50")])
                .absoluteString
                == "https://h/api/agent/messages?after=c%201%262&limit=50")
    }
}
