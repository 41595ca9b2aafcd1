import Foundation
import SybilCore
import SybilTesting

/// An OpenAI-compatible peer on loopback that answers every chat request with one delta,
/// "Antwort auf N Nachrichten" (N = the messages the request carried), and records each
/// request's model and messages, so a test sees what the client sent.
final class OpenAIPeer: Sendable {
    let server: LoopbackHTTPServer

    init() throws {
        server = try LoopbackHTTPServer { request, connection in
            if request.requestLine.hasPrefix("GET /healthz") {
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
                return
            }
            let count = OpenAIPeer.messages(in: request.body).count
            let chunk =
                #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"#
                + #""Antwort auf \#(count) Nachrichten"},"finish_reason":null}]}"#
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            for event in ["data: \(chunk)\n\n", "data: [DONE]\n\n"] {
                connection.write(String(event.utf8.count, radix: 16) + "\r\n" + event + "\r\n")
            }
            connection.write("0\r\n\r\n")
        }
    }

    var url: URL { server.url }

    /// The chat requests received, as (model, message roles and contents).
    var chatRequests: [(model: String, messages: [(role: String, content: String)])] {
        server.received.filter { $0.requestLine.hasPrefix("POST") }.map { request in
            (OpenAIPeer.model(in: request.body), OpenAIPeer.messages(in: request.body))
        }
    }

    private static func object(_ body: [UInt8]) -> JSONObjectReader? {
        (try? JSONReader().parse(body)).flatMap { try? JSONObjectReader($0, at: .root) }
    }

    static func model(in body: [UInt8]) -> String {
        (try? object(body)?.string("model")) ?? ""
    }

    static func messages(in body: [UInt8]) -> [(role: String, content: String)] {
        guard let values = try? object(body)?.array("messages") else { return [] }
        return values.compactMap { value in
            guard let message = try? JSONObjectReader(value, at: .root),
                let role = try? message.string("role"), let content = try? message.string("content")
            else { return nil }
            return (role, content)
        }
    }
}
