import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import SybilWire
import Testing

@Suite("Agent room HTTP client", .timeLimit(.minutes(2)))
struct AgentRoomHTTPClientTests {
    typealias F = AgentRoomFixtures

    private func client(
        _ server: LoopbackHTTPServer, path: String = "/api", tokens: TokenProvider = F.tokens(), seed: UInt64 = 1
    ) throws -> AgentRoomHTTPClient {
        AgentRoomHTTPClient(
            base: try AgentAPIBase(string: server.url.absoluteString + path),
            http: DefaultHTTPClient.make(redirects: .deliver), tokens: tokens, random: SeededRandomSource(seed: seed)
        )
    }

    private func client(_ http: RoomScriptedHTTP, tokens: TokenProvider = F.tokens()) throws -> AgentRoomHTTPClient {
        AgentRoomHTTPClient(
            base: try AgentAPIBase(string: "https://h/api"), http: http, tokens: tokens,
            random: SeededRandomSource(seed: 1))
    }

    private static func json(_ status: Int, _ body: String, extra: String = "") -> String {
        "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\(extra)"
            + "Connection: close\r\n\r\n\(body)"
    }

    // MARK: Requests

    @Test func requestsGoUnderTheBasePathWithTheBearerToken() async throws {
        let page = AgentRoomPage(
            messages: [F.message(41), F.message(42)], nextCursor: F.cursor(42), hasMoreBefore: true)
        let body = JSONWriter().string(from: page.jsonValue)
        let server = try LoopbackHTTPServer { _, connection in connection.write(Self.json(200, body)) }
        let answer = try await client(server, path: "/api/").messages(after: nil, before: F.cursor(43), limit: 2)
        #expect(answer == page)
        let request = try #require(server.received.first)
        #expect(request.requestLine == "GET /api/agent/messages?before=c-000000043&limit=2 HTTP/1.1")
        #expect(request.header("Authorization") == "Bearer t0k3n")
        #expect(request.header("Accept") == "application/json")
    }

    @Test func markReadPostsTheCursorAndDecodesTheReadState() async throws {
        let server = try LoopbackHTTPServer { _, connection in
            connection.write(Self.json(200, #"{"readCursor":"c-000000007","unread":0}"#))
        }
        let state = try await client(server, path: "").markRead(F.cursor(7))
        #expect(state == AgentReadState(readCursor: F.cursor(7), unread: 0))
        let request = try #require(server.received.first)
        #expect(request.requestLine == "POST /agent/read HTTP/1.1")
        #expect(request.header("Content-Type") == "application/json")
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"cursor":"c-000000007"}"#)
    }

    @Test func a401RenewsTheTokenOnceAndRepeatsTheCall() async throws {
        let calls = Locked(0)
        let server = try LoopbackHTTPServer { _, connection in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            connection.write(
                call == 1
                    ? Self.json(401, #"{"error":{"message":"expired","code":"unauthorized"}}"#)
                    : Self.json(200, #"{"readCursor":null,"unread":3}"#))
        }
        let refresher = RoomTokenRefresher()
        let state = try await client(server, tokens: F.tokens(refresher: refresher)).readState()
        #expect(state == AgentReadState(readCursor: nil, unread: 3))
        #expect(refresher.count == 1)
        #expect(server.received.map { $0.header("Authorization") } == ["Bearer t0k3n", "Bearer fresh-1"])
    }

    @Test func aSecond401IsTheServersErrorAndNothingIsSentAThirdTime() async throws {
        let server = try LoopbackHTTPServer { _, connection in
            connection.write(
                Self.json(401, #"{"error":{"message":"A valid bearer token is required.","code":"unauthorized"}}"#))
        }
        let refresher = RoomTokenRefresher()
        let error = await #expect(throws: AgentRoomError.self) {
            _ = try await client(server, tokens: F.tokens(refresher: refresher)).readState()
        }
        #expect(error?.status == 401)
        #expect(error?.code == "unauthorized")
        #expect(server.received.count == 2)
        #expect(refresher.count == 1)
    }

    @Test func aTokenThatCannotBeRenewedLeavesTheFirst401() async throws {
        let server = try LoopbackHTTPServer { _, connection in
            connection.write(Self.json(401, #"{"error":{"message":"expired","code":"unauthorized"}}"#))
        }
        let refresher = RoomTokenRefresher(fails: true)
        await #expect(
            throws: AgentRoomError.rejected(
                status: 401, error: APIErrorBody(message: "expired", code: "unauthorized"), retryAfterSeconds: nil)
        ) {
            _ = try await client(server, tokens: F.tokens(refresher: refresher)).descriptor()
        }
        #expect(server.received.count == 1)
        #expect(refresher.count == 1)
    }

    @Test func aRedirectIsRefusedAndNeverFollowed() async throws {
        let followed = Locked(false)
        let server = try LoopbackHTTPServer { request, connection in
            if request.requestLine.contains("/elsewhere") { followed.withLock { $0 = true } }
            connection.write(
                "HTTP/1.1 302 Found\r\nLocation: /elsewhere/agent/descriptor\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
        }
        await #expect(throws: AgentRoomError.redirectRefused(status: 302)) {
            _ = try await client(server).descriptor()
        }
        let download = AgentAttachment(
            uploadId: "u-1", fileName: "a.txt", mimeType: "text/plain", size: 1,
            sha256: String(repeating: "0", count: 64))
        await #expect(throws: AgentRoomError.redirectRefused(status: 302)) {
            _ = try await client(server).original(of: download)
        }
        #expect(server.received.count == 2, "one request per call, none to the Location")
        #expect(!followed.withLock { $0 })
    }

    // MARK: Errors keep what a person needs

    @Test func errorsKeepCodeDetailsAndRetryAfter() async throws {
        let http = RoomScriptedHTTP([
            RoomScriptedHTTP.answer(
                413,
                #"{"error":{"message":"build.log is 9.1 MiB; files may be at most 8 MiB.","code":"too_large","details":{"limitBytes":8388608}}}"#
            ),
            RoomScriptedHTTP.answer(
                429, #"{"error":{"message":"Too many uploads; retry in 30 seconds.","code":"rate_limited"}}"#,
                headers: [("Retry-After", "30")]),
            RoomScriptedHTTP.answer(
                503,
                #"{"error":{"message":"Attachments are unavailable right now; text messages still work.","code":"open_proxy_unavailable"}}"#
            ),
        ])
        let api = try client(http)
        let file = AgentUploadFile(uploadId: "u-1", fileName: "build.log", mimeType: "text/plain", bytes: [1])
        for expected in [413, 429, 503] {
            do {
                _ = try await api.upload(file)
                Issue.record("expected HTTP \(expected)")
            } catch {
                #expect(error.status == expected)
                switch expected {
                case 413: #expect(error.limitBytes == 8_388_608)
                case 429: #expect(error.retryAfterSeconds == 30)
                default: #expect(error.isAttachmentsUnavailable)
                }
            }
        }
    }

    // MARK: Strict, bounded answers

    @Test func answersAreDecodedStrictlyNamingTheField() async throws {
        let http = RoomScriptedHTTP([
            RoomScriptedHTTP.answer(200, #"{"readCursor":"c-000000001","unread":0,"extra":1}"#),
            RoomScriptedHTTP.answer(200, #"{"readCursor":"c-000000001","unread":-1}"#),
        ])
        let api = try client(http)
        for _ in 0..<2 {
            do {
                _ = try await api.readState()
                Issue.record("a malformed read state was accepted")
            } catch {
                guard case .malformedAnswer(let text) = error else {
                    Issue.record("expected a malformed answer, got \(error)")
                    continue
                }
                #expect(text.hasPrefix("GET agent/read: "))
                #expect(text.contains("extra") || text.contains("unread"))
            }
        }
    }

    @Test func anAnswerOfExactlyTheLimitIsReadAndOneByteMoreIsRefused() async throws {
        let core = #"{"readCursor":null,"unread":0}"#
        let exact = core + String(repeating: " ", count: AgentRoomHTTPClient.maximumAnswerBytes - core.utf8.count)
        let http = RoomScriptedHTTP([
            RoomScriptedHTTP.answer(200, exact), RoomScriptedHTTP.answer(200, exact + " "),
        ])
        let api = try client(http)
        #expect(try await api.readState() == AgentReadState(readCursor: nil, unread: 0))
        await #expect(
            throws: AgentRoomError.malformedAnswer(
                "GET agent/read: the answer is larger than \(AgentRoomHTTPClient.maximumAnswerBytes) bytes")
        ) { _ = try await api.readState() }
    }

    @Test func aPageMustFitItsRequest() async throws {
        func page(_ sequences: [Int]) -> String {
            JSONWriter().string(
                from: AgentRoomPage(
                    messages: sequences.map { F.message($0) }, nextCursor: sequences.last.map { F.cursor($0) },
                    hasMoreBefore: false
                ).jsonValue)
        }
        let http = RoomScriptedHTTP([
            RoomScriptedHTTP.answer(200, page([10, 11])),  // limit 2: fits
            RoomScriptedHTTP.answer(200, page([10, 11, 12])),  // limit 2: one too many
            RoomScriptedHTTP.answer(200, page([10, 11])),  // after c-10: not newer
            RoomScriptedHTTP.answer(200, page([10, 11])),  // before c-11: not older
        ])
        let api = try client(http)
        #expect(try await api.messages(after: F.cursor(9), before: nil, limit: 2).messages.count == 2)
        await #expect(
            throws: AgentRoomError.malformedAnswer("GET agent/messages: messages: 3 messages for a limit of 2")
        ) {
            _ = try await api.messages(after: nil, before: nil, limit: 2)
        }
        await #expect(
            throws: AgentRoomError.malformedAnswer(
                "GET agent/messages: messages[0].cursor: c-000000010 is not newer than after=c-000000010")
        ) { _ = try await api.messages(after: F.cursor(10), before: nil, limit: 50) }
        await #expect(
            throws: AgentRoomError.malformedAnswer(
                "GET agent/messages: messages[1].cursor: c-000000011 is not older than before=c-000000011")
        ) { _ = try await api.messages(after: nil, before: F.cursor(11), limit: 50) }
        #expect(
            http.requests.map(\.url.query) == [
                "after=c-000000009&limit=2", "limit=2", "after=c-000000010&limit=50", "before=c-000000011&limit=50",
            ])
    }

    @Test func aReceiptMustAcknowledgeExactlyTheSubmission() async throws {
        let submission = AgentRoomSubmission(requestId: "r-1", text: "hi", createdAt: 5, attachments: ["u-1", "u-2"])
        func receipt(_ requestId: String, _ attachments: [String]) -> String {
            JSONWriter().string(
                from: AgentRoomReceipt(
                    requestId: requestId, messageId: "msg-9", cursor: F.cursor(9), attachments: attachments
                )
                .jsonValue)
        }
        let http = RoomScriptedHTTP([
            RoomScriptedHTTP.answer(202, receipt("r-1", ["u-1", "u-2"])),
            RoomScriptedHTTP.answer(200, receipt("r-1", ["u-2", "u-1"])),
            RoomScriptedHTTP.answer(200, receipt("r-2", ["u-1", "u-2"])),
        ])
        let api = try client(http)
        #expect(try await api.submit(submission).messageId == "msg-9")
        for _ in 0..<2 {
            let error = await #expect(throws: AgentRoomError.self) { _ = try await api.submit(submission) }
            guard case .malformedAnswer(let text)? = error else {
                Issue.record("expected a malformed answer, got \(String(describing: error))")
                continue
            }
            #expect(text.hasPrefix("POST agent/messages: receipt: acknowledges"))
        }
        let sent = try JSONReader().parse(try #require(http.requests.first?.body))
        #expect(sent == submission.jsonValue)
    }

    // MARK: Uploads

    @Test func anUploadIsAMultipartFormWithUploadIdThenFile() async throws {
        let bytes: [UInt8] = Array("line one\r\nline two\r\n".utf8) + [0, 255, 13, 10]
        let digest = SHA256Digest.hex(bytes)
        let stored = AgentAttachment(
            uploadId: "0d9c6a4e-2b7f-4f0e-8b61-55a1c3e9d702", fileName: "build \"1\".log", mimeType: "text/plain",
            size: Int64(bytes.count), sha256: digest)
        let answer = JSONWriter().string(from: ["upload": stored.jsonValue])
        let server = try LoopbackHTTPServer { _, connection in connection.write(Self.json(201, answer)) }
        let file = AgentUploadFile(
            uploadId: stored.uploadId, fileName: "build \"1\".log", mimeType: "text/plain", bytes: bytes)
        #expect(try await client(server, seed: 99).upload(file) == stored)

        let request = try #require(server.received.first)
        #expect(request.requestLine == "POST /api/agent/uploads HTTP/1.1")
        let boundary = try #require(roomBoundaries(seed: 99, count: 1).first)
        #expect(request.header("Content-Type") == "multipart/form-data; boundary=\(boundary)")
        let expected =
            Array(
                ("--\(boundary)\r\nContent-Disposition: form-data; name=\"uploadId\"\r\n\r\n\(stored.uploadId)\r\n"
                    + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"build %221%22.log\"\r\n"
                    + "Content-Type: text/plain\r\n\r\n").utf8) + bytes + Array("\r\n--\(boundary)--\r\n".utf8)
        #expect(request.body == expected)
        #expect(request.header("Content-Length") == String(expected.count))
    }

    @Test func theBoundaryIsNeverFoundInTheFile() async throws {
        let candidates = roomBoundaries(seed: 7, count: 2)
        let bytes = Array("prefix \(candidates[0]) suffix".utf8)
        let stored = AgentAttachment(
            uploadId: "u-1", fileName: "a.txt", mimeType: "text/plain", size: Int64(bytes.count),
            sha256: SHA256Digest.hex(bytes))
        let http = RoomScriptedHTTP([
            RoomScriptedHTTP.answer(201, JSONWriter().string(from: ["upload": stored.jsonValue]))
        ])
        let api = AgentRoomHTTPClient(
            base: try AgentAPIBase(string: "https://h/api"), http: http, tokens: F.tokens(),
            random: SeededRandomSource(seed: 7))
        _ = try await api.upload(
            AgentUploadFile(uploadId: "u-1", fileName: "a.txt", mimeType: "text/plain", bytes: bytes))
        #expect(http.requests.first?.headers["Content-Type"] == "multipart/form-data; boundary=\(candidates[1])")
    }

    @Test func anUploadAnswerForOtherBytesIsRefused() async throws {
        let bytes: [UInt8] = [1, 2, 3]
        func answer(id: String, size: Int64, sha: String) -> @Sendable (HTTPRequest) -> HTTPStreamingResponse {
            let stored = AgentAttachment(
                uploadId: id, fileName: "a.bin", mimeType: "application/octet-stream", size: size, sha256: sha)
            return RoomScriptedHTTP.answer(200, JSONWriter().string(from: ["upload": stored.jsonValue]))
        }
        let right = SHA256Digest.hex(bytes)
        let http = RoomScriptedHTTP([
            answer(id: "u-2", size: 3, sha: right), answer(id: "u-1", size: 4, sha: right),
            answer(id: "u-1", size: 3, sha: SHA256Digest.hex([1, 2, 4])),
        ])
        let api = try client(http)
        let file = AgentUploadFile(
            uploadId: "u-1", fileName: "a.bin", mimeType: "application/octet-stream", bytes: bytes)
        let expectedFields = ["upload.uploadId", "upload.size", "upload.sha256"]
        for field in expectedFields {
            let error = await #expect(throws: AgentRoomError.self) { _ = try await api.upload(file) }
            guard case .malformedAnswer(let text)? = error else {
                Issue.record("expected a malformed answer, got \(String(describing: error))")
                continue
            }
            #expect(text.hasPrefix("POST agent/uploads: \(field):"))
        }
    }

    // MARK: Originals

    private static func attachment(_ bytes: [UInt8], id: String = "0d9c/6a4e 1") -> AgentAttachment {
        AgentAttachment(
            uploadId: id, fileName: "build.log", mimeType: "text/plain", size: Int64(bytes.count),
            sha256: SHA256Digest.hex(bytes))
    }

    @Test func anOriginalIsFetchedByItsPercentEncodedIdAndVerified() async throws {
        let bytes = Array("exact original bytes".utf8)
        let server = try LoopbackHTTPServer { _, connection in
            connection.write(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(bytes.count)\r\n"
                    + "X-Content-SHA256: \(SHA256Digest.hex(bytes))\r\nConnection: close\r\n\r\n")
            connection.write(bytes)
        }
        #expect(try await client(server).original(of: Self.attachment(bytes)) == bytes)
        let request = try #require(server.received.first)
        #expect(request.requestLine == "GET /api/agent/uploads/0d9c%2F6a4e%201/original HTTP/1.1")
        #expect(request.header("Authorization") == "Bearer t0k3n")
    }

    @Test func anOriginalOfAnotherSizeOrDigestIsAnIntegrityError() async throws {
        let bytes = Array("exact original bytes".utf8)
        let tampered = Array("exact original bytez".utf8)
        let http = RoomScriptedHTTP([
            RoomScriptedHTTP.answer(200, String(decoding: bytes.dropLast(), as: UTF8.self)),  // one short
            RoomScriptedHTTP.answer(200, String(decoding: bytes + [0x21], as: UTF8.self)),  // one more
            RoomScriptedHTTP.answer(200, String(decoding: tampered, as: UTF8.self)),  // same size, other bytes
            RoomScriptedHTTP.answer(
                200, String(decoding: bytes, as: UTF8.self), headers: [("Content-Length", String(bytes.count + 1))]),
            RoomScriptedHTTP.answer(
                200, String(decoding: bytes, as: UTF8.self), headers: [("X-Content-SHA256", SHA256Digest.hex(tampered))]
            ),
            RoomScriptedHTTP.answer(206, String(decoding: bytes, as: UTF8.self)),
        ])
        let api = try client(http)
        let expected = [
            "the download ended after 19 of build.log's 20 bytes", "the server sent more than build.log's 20 bytes",
            "the bytes' SHA-256 is \(SHA256Digest.hex(tampered)), not build.log's \(SHA256Digest.hex(bytes))",
            "Content-Length is 21 bytes, but build.log has 20",
            "X-Content-SHA256 is \(SHA256Digest.hex(tampered)), but build.log's SHA-256 is \(SHA256Digest.hex(bytes))",
            "GET agent/uploads/0d9c/6a4e 1/original answered HTTP 206, not 200 with the whole original",
        ]
        for reason in expected {
            await #expect(throws: AgentRoomError.integrity(reason)) {
                _ = try await api.original(of: Self.attachment(bytes))
            }
        }
    }

    @Test func aDownloadNeverReadsMoreThanItsSizePlusOneByte() async throws {
        let pulled = Locked(0)
        let endless: @Sendable (HTTPRequest) -> HTTPStreamingResponse = { _ in
            let body = AsyncThrowingStream<[UInt8], any Error>(unfolding: {
                pulled.withLock { $0 += 1 }
                return [UInt8](repeating: 0x61, count: 4)
            })
            return HTTPStreamingResponse(head: HTTPResponseHead(status: 200), body: body)
        }
        let http = RoomScriptedHTTP([endless])
        let bytes = [UInt8](repeating: 0x61, count: 10)
        await #expect(throws: AgentRoomError.integrity("the server sent more than build.log's 10 bytes")) {
            _ = try await client(http).original(of: Self.attachment(bytes))
        }
        #expect(pulled.withLock { $0 } == 3, "4 + 4 + 4 bytes reach 11: nothing is pulled after")
    }

    @Test func aDescriptorClaimingMoreThanAnyV1FileIsRefusedWithoutARequest() async throws {
        let http = RoomScriptedHTTP([])
        var attachment = Self.attachment([1])
        attachment.size = AgentAttachmentLimits.v1.maxFileBytes + 1
        let error = await #expect(throws: AgentRoomError.self) { _ = try await client(http).original(of: attachment) }
        guard case .integrity(let text)? = error else {
            Issue.record("expected an integrity error, got \(String(describing: error))")
            return
        }
        #expect(text.contains("8388609 bytes"))
        #expect(http.requests.isEmpty)
    }
}
