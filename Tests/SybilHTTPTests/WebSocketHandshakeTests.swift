import Foundation
import SybilCore
import Testing

@testable import SybilHTTP

@Suite("WebSocket opening handshake", .timeLimit(.minutes(2)))
struct WebSocketHandshakeTests {
    private let key = "dGhlIHNhbXBsZSBub25jZQ=="

    private func upgrade(method: String = "GET", _ fields: [(String, String)]? = nil) -> HTTPHeaders {
        HTTPHeaders(
            fields ?? [
                ("Host", "h"), ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", key),
                ("Sec-WebSocket-Version", "13"),
            ])
    }

    private func answer(_ fields: [String], status: String = "HTTP/1.1 101 Switching Protocols") -> String {
        ([status] + fields).joined(separator: "\r\n")
    }

    /// RFC 6455 §1.3.
    @Test func acceptValueFromTheRFC() {
        #expect(WebSocketHandshake.acceptValue(for: key) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func requestHeadCarriesTheKeyVersionAndExtraFields() {
        let head = WebSocketHandshake(key: key).requestHead(
            target: "/chat?x=1", host: "h:444", headers: HTTPHeaders([("Authorization", "Bearer t")]))
        #expect(
            head
                == "GET /chat?x=1 HTTP/1.1\r\nHost: h:444\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer t\r\n\r\n"
        )
    }

    @Test func aRandomKeyIsSixteenBytesInBase64AndFollowsTheSource() {
        let first = WebSocketHandshake(random: SeededRandomSource(seed: 7))
        #expect(Base64.decode(first.key)?.count == 16)
        #expect(first == WebSocketHandshake(random: SeededRandomSource(seed: 7)))
        #expect(first != WebSocketHandshake(random: SeededRandomSource(seed: 8)))
    }

    @Test func theClientAcceptsAValidAnswer() throws {
        let handshake = WebSocketHandshake(key: key)
        try handshake.validate(
            responseHead: answer([
                "upgrade: WebSocket", "connection: keep-alive, upgrade",
                "Sec-WebSocket-Accept:  s3pPLMBiTxaQ9kYGzzhZRbK+xOo= ",
            ]))
    }

    @Test func theClientRefusesEachBrokenAnswerNamingTheField() {
        let handshake = WebSocketHandshake(key: key)
        let accept = "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        let cases: [(String, WebSocketHandshakeError)] = [
            (answer([], status: "HTTP/1.1 200 OK"), .unexpectedStatus("HTTP/1.1 200 OK")),
            (answer([], status: "HTTP/1.0 101 Switching"), .unexpectedStatus("HTTP/1.0 101 Switching")),
            (answer(["Upgrade: h2c", "Connection: Upgrade", accept]), .missingUpgrade("h2c")),
            (answer(["Connection: Upgrade", accept]), .missingUpgrade(nil)),
            (answer(["Upgrade: websocket", "Connection: close", accept]), .missingConnectionUpgrade("close")),
            (
                answer(["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: x"]),
                .wrongAccept(expected: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", got: "x")
            ),
            (
                answer(["Upgrade: websocket", "Connection: Upgrade", accept, "Sec-WebSocket-Extensions: deflate"]),
                .unrequestedExtension("deflate")
            ),
        ]
        for (head, expected) in cases {
            #expect(throws: expected) { try handshake.validate(responseHead: head) }
        }
    }

    /// The answer's head is read by the responses' head decoder: a line that is not a field line,
    /// a folded line or a bare LF refuse the answer (they were skipped or read as part of a field).
    @Test func theAnswersHeadIsReadWithTheSharedFieldLineRules() {
        let handshake = WebSocketHandshake(key: key)
        let fields = [
            "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
        ]
        let cases: [(String, WebSocketHandshakeError)] = [
            (answer(fields + ["X-Broken"]), .invalidHead(#"the header line "X-Broken" has no colon"#)),
            (
                answer(fields + ["X-Folded: a", " b"]),
                .invalidHead("a header line starts with white space (folded lines are not allowed)")
            ),
            (
                answer(["Upgrade : websocket"] + fields.dropFirst()),
                .invalidHead(#"white space between the header name "Upgrade" and its colon"#)
            ),
            (
                answer(fields).replacingOccurrences(of: "\r\n", with: "\n"),
                .invalidHead("a bare LF in the response head")
            ),
            (answer(fields, status: "HTTP/2 101"), .invalidHead(#"the status line "HTTP/2 101" is not HTTP/1.x"#)),
        ]
        for (head, expected) in cases {
            #expect(throws: expected) { try handshake.validate(responseHead: head) }
        }
    }

    /// Read as bytes arrive, the head is refused at its first bare LF and at 16 KiB without its
    /// end, and the bytes after it (the first frames) stay for the frame decoder.
    @Test func theAnswerIsReadAsItArrivesAndLeavesTheFramesAfterIt() throws {
        let handshake = WebSocketHandshake(key: key)
        let head = answer([
            "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
        ])
        var decoder = WebSocketHandshake.responseHeadDecoder()
        var received = Array((head + "\r\n").utf8)
        #expect(try handshake.readResponse(&received, with: &decoder) == false)
        received += Array("\r\n".utf8) + [0x81, 0x00]
        #expect(try handshake.readResponse(&received, with: &decoder))
        #expect(received == [0x81, 0x00])

        var lf = Array("HTTP/1.1 101 Switching Protocols\n".utf8)
        decoder = WebSocketHandshake.responseHeadDecoder()
        #expect(throws: WebSocketHandshakeError.invalidHead("a bare LF in the response head")) {
            try handshake.readResponse(&lf, with: &decoder)
        }
        var endless = Array("HTTP/1.1 101 Switching Protocols\r\nX: ".utf8) + [UInt8](repeating: 0x61, count: 16 << 10)
        decoder = WebSocketHandshake.responseHeadDecoder()
        #expect(throws: WebSocketHandshakeError.invalidHead("it is longer than 16 KiB")) {
            try handshake.readResponse(&endless, with: &decoder)
        }
    }

    @Test func theServerAcceptsAValidUpgradeWithItsAcceptValue() throws {
        #expect(try WebSocketHandshake.accept(method: "GET", headers: upgrade()) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let spelled = HTTPHeaders([
            ("upgrade", "WebSocket"), ("connection", "keep-alive, Upgrade"), ("sec-websocket-key", key),
            ("sec-websocket-version", "13"),
        ])
        #expect(try WebSocketHandshake.accept(method: "GET", headers: spelled) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func theServerRefusesEachBrokenUpgradeNamingTheField() {
        func refusal(_ method: String = "GET", replacing name: String, with value: String?) -> WebSocketUpgradeError? {
            var headers = upgrade()
            if let value {
                headers.set(name, value)
            } else {
                headers = HTTPHeaders(headers.fields.filter { $0.name != name }.map { ($0.name, $0.value) })
            }
            do {
                _ = try WebSocketHandshake.accept(method: method, headers: headers)
                return nil
            } catch { return error }
        }
        #expect(refusal("HEAD", replacing: "Host", with: "h") == .notGet("HEAD"))
        #expect(refusal(replacing: "Upgrade", with: nil) == .missingUpgrade)
        #expect(refusal(replacing: "Upgrade", with: "websockets") == .missingUpgrade)
        #expect(refusal(replacing: "Connection", with: "keep-alive") == .missingConnectionUpgrade)
        #expect(refusal(replacing: "Sec-WebSocket-Version", with: "12") == .unsupportedVersion)
        #expect(refusal(replacing: "Sec-WebSocket-Version", with: nil) == .unsupportedVersion)
        #expect(refusal(replacing: "Sec-WebSocket-Key", with: nil) == .invalidKey)
        // 15 and 17 bytes either side of the 16 required.
        #expect(
            refusal(replacing: "Sec-WebSocket-Key", with: Base64.encode(Array(repeating: 1, count: 15))) == .invalidKey)
        #expect(
            refusal(replacing: "Sec-WebSocket-Key", with: Base64.encode(Array(repeating: 1, count: 17))) == .invalidKey)
        #expect(refusal(replacing: "Sec-WebSocket-Key", with: Base64.encode(Array(repeating: 1, count: 16))) == nil)
        #expect(refusal(replacing: "Sec-WebSocket-Key", with: "not base64!!!!!!!!!!!!!!") == .invalidKey)
        #expect(WebSocketUpgradeError.invalidKey.field == "Sec-WebSocket-Key")
        #expect(WebSocketUpgradeError.notGet("HEAD").field == nil)
    }

    /// RFC 6455 §11.3.3: `Sec-WebSocket-Accept` must not appear more than once. The first of two
    /// used to be checked alone, so a right value followed by any other passed; and an empty
    /// extensions field in front hid a chosen extension behind it.
    @Test func theClientRefusesAnAnswerThatRepeatsItsAcceptOrHidesAnExtension() {
        let handshake = WebSocketHandshake(key: key)
        let right = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        let base = ["Upgrade: websocket", "Connection: Upgrade"]
        #expect(throws: WebSocketHandshakeError.wrongAccept(expected: right, got: "\(right), x")) {
            try handshake.validate(
                responseHead: self.answer(base + ["Sec-WebSocket-Accept: \(right)", "Sec-WebSocket-Accept: x"]))
        }
        #expect(throws: WebSocketHandshakeError.wrongAccept(expected: right, got: "\(right), \(right)")) {
            try handshake.validate(
                responseHead: self.answer(base + ["Sec-WebSocket-Accept: \(right)", "Sec-WebSocket-Accept: \(right)"]))
        }
        #expect(throws: WebSocketHandshakeError.wrongAccept(expected: right, got: nil)) {
            try handshake.validate(responseHead: self.answer(base))
        }
        #expect(throws: WebSocketHandshakeError.unrequestedExtension("deflate")) {
            try handshake.validate(
                responseHead: self.answer(
                    base + [
                        "Sec-WebSocket-Accept: \(right)", "Sec-WebSocket-Extensions:",
                        "Sec-WebSocket-Extensions: deflate",
                    ]))
        }
        // An empty extensions field alone chooses nothing.
        #expect(throws: Never.self) {
            try handshake.validate(
                responseHead: self.answer(base + ["Sec-WebSocket-Accept: \(right)", "Sec-WebSocket-Extensions:"]))
        }
    }

    /// RFC 6455 §11.3.1 and §11.3.5: the key and the version come once; a second one leaves the
    /// request without one meaning, even when the first is valid.
    @Test func theServerRefusesAnUpgradeThatRepeatsItsKeyOrVersion() {
        func refusal(adding name: String, _ value: String) -> WebSocketUpgradeError? {
            var headers = upgrade()
            headers.append(name, value)
            do {
                _ = try WebSocketHandshake.accept(method: "GET", headers: headers)
                return nil
            } catch { return error }
        }
        #expect(refusal(adding: "Sec-WebSocket-Key", key) == .invalidKey)
        #expect(refusal(adding: "sec-websocket-key", Base64.encode(Array(repeating: 1, count: 16))) == .invalidKey)
        #expect(refusal(adding: "Sec-WebSocket-Version", "13") == .unsupportedVersion)
        #expect(refusal(adding: "Sec-WebSocket-Version", "8") == .unsupportedVersion)
        #expect(refusal(adding: "Origin", "http://h") == nil)
    }
}
