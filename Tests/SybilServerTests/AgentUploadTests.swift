import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import SybilWire
import Testing

@testable import SybilServer

/// `POST agent/uploads` as multipart/form-data (streamed into the parser as the transport
/// does, and whole), the raw form beside it, and every v1 ceiling at its boundary: exactly
/// at the limit passes, one over fails with the seed's code and details.
@Suite("Reference server: Agent uploads and ceilings", .timeLimit(.minutes(2)))
struct AgentUploadTests {
    private static func error(_ response: HTTPServerResponse) throws -> APIErrorBody {
        try APIErrorBody.decode(json(response), at: .root)
    }

    /// Uploads through the streaming path and checks it was taken.
    private func streamed(
        _ harness: AppHarness, id: String, bytes: [UInt8], name: String = "a.bin",
        type: String = "application/octet-stream",
        chunk: Int = 64 << 10
    ) async -> HTTPServerResponse {
        let form = AppHarness.uploadForm(id: id, bytes: bytes, name: name, type: type)
        let (response, consumed) = await harness.sendStreamed(
            "POST", "/agent/uploads", body: form.encoded(), headers: [("Content-Type", form.contentType)], chunk: chunk)
        #expect(consumed, "the multipart body was streamed into the form")
        return response
    }

    // MARK: Multipart

    @Test(arguments: [false, true])
    func multipartUploadsAreTheSameUploadOnRetryAndConflictOnOtherBytes(streaming: Bool) async throws {
        let harness = try AppHarness()
        func upload(_ bytes: [UInt8]) async -> HTTPServerResponse {
            streaming
                ? await streamed(
                    harness, id: "0d9c6a4e", bytes: bytes, name: "build log.txt", type: "text/plain", chunk: 7)
                : await harness.uploadMultipart(id: "0d9c6a4e", bytes: bytes)
        }
        let bytes = Array("linker failed twice\n".utf8)
        let created = await upload(bytes)
        #expect(created.status == 201)
        let descriptor = try AgentAttachment.decodeUploadAnswer(json(created), at: .root)
        #expect(
            descriptor
                == AgentAttachment(
                    uploadId: "0d9c6a4e", fileName: "build log.txt", mimeType: "text/plain", size: 20,
                    sha256: "391b605071d09cabd108060727a64c4801bae85214f25be4e181ef48ae6a2f82"))
        let retried = await upload(bytes)
        #expect(retried.status == 200)
        #expect(try AgentAttachment.decodeUploadAnswer(json(retried), at: .root) == descriptor)
        let conflict = await upload(bytes + [0x21])
        #expect(conflict.status == 409)
        #expect(try Self.error(conflict).code == "upload_conflict")
        let original = await harness.send("GET", "/agent/uploads/0d9c6a4e/original")
        #expect(original.bodyBytes == bytes)
        #expect(original.headers["X-Content-SHA256"] == descriptor.sha256)
    }

    @Test(arguments: [false, true])
    func theRawFormsHeadersBesideAFormMayOnlyRepeatItsIdAndName(streaming: Bool) async throws {
        let harness = try AppHarness()
        let form = AppHarness.uploadForm(id: "u-7", bytes: Array("ok".utf8), name: "a b.txt", type: "text/plain")
        func upload(_ header: String, _ value: String) async -> HTTPServerResponse {
            let headers = [("Content-Type", form.contentType), (header, value)]
            return streaming
                ? await harness.sendStreamed("POST", "/agent/uploads", body: form.encoded(), headers: headers, chunk: 5)
                    .response
                : await harness.send("POST", "/agent/uploads", body: form.encoded(), headers: headers)
        }
        for (header, other) in [
            ("X-Upload-Id", ""), ("X-Upload-Id", "u-8"), ("X-File-Name", ""), ("X-File-Name", "b.txt"),
        ] {
            let refused = await upload(header, other)
            #expect(refused.status == 400, "\(header) \"\(other)\" beside the form's u-7 and a b.txt")
            #expect(try Self.error(refused).param == header)
        }
        #expect(await harness.send("GET", "/agent/uploads/u-7/original").status == 404, "nothing was stored")
        #expect(await upload("X-Upload-Id", "u-7").status == 201)
        #expect(await upload("X-File-Name", "a%20b.txt").status == 200, "the same upload again")
    }

    @Test func aUTF8FileNameInFilenameStarIsKept() async throws {
        let harness = try AppHarness()
        let body = Array(
            [
                "--b", "Content-Disposition: form-data; name=\"uploadId\"", "", "u-1", "--b",
                "Content-Disposition: form-data; name=\"file\"; filename=\"x.txt\"; filename*=UTF-8''Pr%C3%BCfung.txt",
                "Content-Type: text/plain", "", "ok", "--b--",
            ].joined(separator: "\r\n").utf8)
        let response = await harness.send(
            "POST", "/agent/uploads", body: body, headers: [("Content-Type", "multipart/form-data; boundary=b")])
        #expect(try AgentAttachment.decodeUploadAnswer(json(response), at: .root).fileName == "Prüfung.txt")
    }

    @Test(
        "a form that is not uploadId then file is refused naming what is wrong",
        arguments: [
            (
                [MultipartFormData.Part(name: "file", fileName: "a.txt", contentType: "text/plain", body: [1])],
                "body", "The first part must be the text part \"uploadId\", got \"file\"."
            ),
            (
                [MultipartFormData.Part(name: "uploadId", body: Array("u".utf8))], "body",
                "The body must have two parts, \"uploadId\" then \"file\"; it has 1."
            ),
            (
                [
                    .init(name: "uploadId", body: Array("u".utf8)),
                    .init(name: "attachment", fileName: "a.txt", contentType: "text/plain", body: [1]),
                ], "body", "The second part must be the file part \"file\", got \"attachment\"."
            ),
            (
                [
                    .init(name: "uploadId", body: Array("u".utf8)),
                    .init(name: "file", contentType: "text/plain", body: [1]),
                ],
                "file", "The part \"file\" needs a filename in its Content-Disposition."
            ),
            (
                [.init(name: "uploadId", body: Array("u".utf8)), .init(name: "file", fileName: "a.txt", body: [1])],
                "file", "The part \"file\" needs a Content-Type with the MIME type of a.txt."
            ),
            (
                [
                    .init(name: "uploadId", body: Array("u".utf8)),
                    .init(name: "file", fileName: "a.txt", contentType: "text/plain", body: [1]),
                    .init(name: "extra", body: [2]),
                ], "body", "The body is not the multipart/form-data this route takes: the body has more than 2 parts."
            ),
            (
                [
                    .init(name: "uploadId", body: Array(String(repeating: "u", count: 129).utf8)),
                    .init(name: "file", fileName: "a.txt", contentType: "text/plain", body: [1]),
                ], "uploadId", "The part \"uploadId\" must be an id of 1 to 128 bytes."
            ),
            (
                [
                    .init(name: "uploadId", body: Array("a/b".utf8)),
                    .init(name: "file", fileName: "a.txt", contentType: "text/plain", body: [1]),
                ], "uploadId", "uploadId must be an id of 1 to 128 visible ASCII characters without '/'."
            ),
            (
                [
                    .init(name: "uploadId", body: Array("u".utf8)),
                    .init(name: "file", fileName: "../a.txt", contentType: "text/plain", body: [1]),
                ], "file",
                "The file name must be 1 to 1024 bytes, not blank, '.' or '..', without '/' or control characters."
            ),
            (
                [
                    .init(name: "uploadId", body: Array("u".utf8)),
                    .init(name: "file", fileName: "a\nb.txt", contentType: "text/plain", body: [1]),
                ], "file",
                "The file name must be 1 to 1024 bytes, not blank, '.' or '..', without '/' or control characters."
            ),
        ])
    func badForms(parts: [MultipartFormData.Part], param: String, message: String) async throws {
        let form = MultipartFormData(boundary: "XyZ", parts: parts)
        for streaming in [false, true] {
            let harness = try AppHarness()
            let response =
                streaming
                ? await harness.sendStreamed(
                    "POST", "/agent/uploads", body: form.encoded(), headers: [("Content-Type", form.contentType)],
                    chunk: 5
                ).response
                : await harness.send(
                    "POST", "/agent/uploads", body: form.encoded(), headers: [("Content-Type", form.contentType)])
            #expect(response.status == 400, "streaming \(streaming)")
            let body = try Self.error(response)
            #expect(body.param == param)
            #expect(body.message == message)
        }
    }

    @Test func anUploadIdOfExactly128BytesIsAccepted() async throws {
        let harness = try AppHarness()
        let id = String(repeating: "u", count: 128)
        #expect(await streamed(harness, id: id, bytes: [1]).status == 201)
    }

    @Test(
        "a malformed multipart body is a 400 naming the part or the Content-Type",
        arguments: [
            ("multipart/form-data", "--b\r\n", "Content-Type"),
            ("multipart/form-data; boundary=\"a{b\"", "--b\r\n", "Content-Type"),
            (
                "multipart/form-data; boundary=b",
                "--b\r\nContent-Disposition: form-data; name=\"uploadId\"\r\n\r\nu\r\n--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\nContent-Type: text/plain\r\n\r\nx",
                "body"
            ),
            (
                "multipart/form-data; boundary=b", "--b\nContent-Disposition: form-data; name=\"uploadId\"\n\nu\n--b--",
                "body"
            ),
        ])
    func malformedBodies(type: String, body: String, param: String) async throws {
        let harness = try AppHarness()
        let response = await harness.send(
            "POST", "/agent/uploads", body: Array(body.utf8), headers: [("Content-Type", type)])
        #expect(response.status == 400)
        let error = try Self.error(response)
        #expect(error.param == param)
        #expect(error.code == "invalid_multipart")
        // Streamed, a Content-Type without a usable boundary is left to the handler.
        let streamed = await harness.sendStreamed(
            "POST", "/agent/uploads", body: Array(body.utf8), headers: [("Content-Type", type)], chunk: 3)
        #expect(streamed.consumed == (param != "Content-Type"))
        #expect(try Self.error(streamed.response) == error)
    }

    // MARK: Bytes per file

    @Test(
        "files 8 MiB, images 6 MiB: at the limit 201, one byte over 413 with limitBytes, as the bytes arrive",
        arguments: [("application/pdf", 8 << 20), ("image/png", 6 << 20), ("image/heic", 6 << 20)])
    func perFileLimits(type: String, limit: Int) async throws {
        let harness = try AppHarness()
        func bytes(_ count: Int) -> [UInt8] {
            type == "image/png"
                ? ImageFixture.png(width: 64, height: 64, size: count) : [UInt8](repeating: 7, count: count)
        }
        #expect(await streamed(harness, id: "at", bytes: bytes(limit), type: type).status == 201)
        let over = await streamed(harness, id: "over", bytes: bytes(limit + 1), name: "big.bin", type: type)
        #expect(over.status == 413)
        let error = try Self.error(over)
        #expect(error.code == "too_large")
        #expect(error.param == "file")
        #expect(error.details?["limitBytes"] == .number(JSONNumber(Int64(limit))))
        #expect(error.message.hasPrefix("big.bin is larger than \(limit >> 20) MiB"))
        // The whole-body path refuses the same way.
        let whole = await harness.uploadMultipart(id: "over", bytes: bytes(limit + 1), name: "big.bin", type: type)
        #expect(try Self.error(whole).details?["limitBytes"] == .number(JSONNumber(Int64(limit))))
        #expect(await harness.send("GET", "/agent/uploads/over/original").status == 404)
    }

    @Test func anOversizedFileIsRefusedAsItArrivesOverARealSocket() async throws {
        var options = SybilServerOptions(token: "live")
        options.pace = .zero
        let server = try ReferenceServer(
            options: options, time: ServerTime(clock: ManualClock()) { AppHarness.epochBase })
        let port = server.http.port
        // Within the route's body limit (8 MiB + 64 KiB), but the file part is 8 MiB + 32 KiB.
        let form = AppHarness.uploadForm(
            id: "u-1", bytes: [UInt8](repeating: 0x41, count: (8 << 20) + (32 << 10)), name: "big.log",
            type: "text/plain")
        let body = form.encoded()
        let response = await blocking { () -> (status: Int, body: [UInt8])? in
            guard let client = try? RawClient(port: port) else { return nil }
            client.send(
                "POST /api/agent/uploads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer live\r\nContent-Type: \(form.contentType)\r\nContent-Length: \(body.count)\r\n\r\n"
            )
            // Everything but the last 16 KiB: the answer must come without them.
            client.send(Array(body.dropLast(16 << 10)))
            return client.readResponse().map { ($0.status, $0.body) }
        }
        let answer = try #require(response)
        #expect(answer.status == 413)
        let error = try APIErrorBody.decode(try JSONReader().parse(answer.body), at: .root)
        #expect(error.code == "too_large")
        #expect(error.param == "file")
        #expect(error.details?["limitBytes"] == .number(JSONNumber(Int64(8 << 20))))
        await server.shutdown()
    }

    @Test func aMultipartUploadOverARealSocketIsStored() async throws {
        var options = SybilServerOptions(token: "live")
        options.pace = .zero
        let server = try ReferenceServer(
            options: options, time: ServerTime(clock: ManualClock()) { AppHarness.epochBase })
        let bytes = ImageFixture.png(width: 640, height: 480, size: 200_000)
        let form = AppHarness.uploadForm(id: "photo-1", bytes: bytes, name: "photo.png", type: "image/png")
        let request = HTTPRequest(
            method: "POST",
            url: APIEndpoint.url(base: server.baseURL.appendingPathComponent("api"), path: "agent/uploads"),
            headers: HTTPHeaders([("Authorization", "Bearer live"), ("Content-Type", form.contentType)]),
            body: form.encoded(), timeout: .seconds(30))
        let response = try await DefaultHTTPClient.make().send(request)
        #expect(response.head.status == 201)
        let descriptor = try AgentAttachment.decodeUploadAnswer(
            try JSONReader().parse(await response.collect()), at: .root)
        #expect(descriptor.size == 200_000)
        #expect(descriptor.sha256 == SHA256Digest.hex(bytes))
        await server.shutdown()
    }

    // MARK: Images

    @Test(
        "PNG, JPEG, GIF and WebP must have a readable header of their type",
        arguments: [
            ("image/png", [UInt8](repeating: 0, count: 100)), ("image/jpeg", ImageFixture.png(width: 10, height: 10)),
            ("image/png", ImageFixture.png(width: 0, height: 10)), ("image/gif", Array("GIF89a".utf8)),
            ("image/webp", Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)),
        ])
    func invalidImages(type: String, bytes: [UInt8]) async throws {
        let harness = try AppHarness()
        let response = await harness.uploadMultipart(id: "i", bytes: bytes, name: "photo", type: type)
        #expect(response.status == 400)
        let error = try Self.error(response)
        #expect(error.code == "invalid_image")
        #expect(error.param == "file")
        let raw = await harness.uploadRaw(id: "i", bytes: bytes, name: "photo", type: type)
        #expect(try Self.error(raw).code == "invalid_image")
        #expect(try Self.error(raw).param == "Content-Type")
    }

    @Test func otherImageTypesAndFilesAreNotDecoded() async throws {
        let harness = try AppHarness()
        #expect(
            await harness.uploadMultipart(id: "h", bytes: [1, 2, 3], name: "a.heic", type: "image/heic").status == 201)
        #expect(
            await harness.uploadMultipart(id: "f", bytes: [1, 2, 3], name: "a.png", type: "application/octet-stream")
                .status == 201)
    }

    @Test(
        "16,384 px per axis: at the limit 201, one over 413 with limitAxisPixels and the size",
        arguments: [
            (
                "image/png", ImageFixture.png(width: 16_384, height: 1), ImageFixture.png(width: 16_385, height: 1),
                16_385, 1
            ),
            (
                "image/png", ImageFixture.png(width: 1, height: 16_384), ImageFixture.png(width: 1, height: 16_385), 1,
                16_385
            ),
            (
                "image/jpeg", ImageFixture.jpeg(width: 16_384, height: 2), ImageFixture.jpeg(width: 16_385, height: 2),
                16_385, 2
            ),
            (
                "image/gif", ImageFixture.gif(width: 3, height: 16_384), ImageFixture.gif(width: 3, height: 16_385), 3,
                16_385
            ),
            (
                "image/webp", ImageFixture.webp(width: 16_384, height: 4), ImageFixture.webp(width: 16_385, height: 4),
                16_385, 4
            ),
        ])
    func axisLimit(type: String, atLimit: [UInt8], over: [UInt8], width: Int64, height: Int64) async throws {
        let harness = try AppHarness()
        #expect(await harness.uploadMultipart(id: "at", bytes: atLimit, name: "wide", type: type).status == 201)
        let response = await harness.uploadMultipart(id: "over", bytes: over, name: "wide", type: type)
        #expect(response.status == 413)
        let error = try Self.error(response)
        #expect(error.code == "too_large")
        #expect(error.details?["limitAxisPixels"] == .number(JSONNumber(Int64(16_384))))
        #expect(error.details?["width"] == .number(JSONNumber(width)))
        #expect(error.details?["height"] == .number(JSONNumber(height)))
    }

    @Test func fiftyMillionPixelsPassAndOneRowMoreIs413WithLimitPixels() async throws {
        let harness = try AppHarness()
        let atLimit = ImageFixture.png(width: 10_000, height: 5_000)
        #expect(
            await harness.uploadMultipart(id: "at", bytes: atLimit, name: "big.png", type: "image/png").status == 201)
        let over = await harness.uploadMultipart(
            id: "over", bytes: ImageFixture.png(width: 10_000, height: 5_001), name: "big.png", type: "image/png")
        #expect(over.status == 413)
        let error = try Self.error(over)
        #expect(error.code == "too_large")
        #expect(error.details?["limitPixels"] == .number(JSONNumber(Int64(50_000_000))))
        #expect(error.details?["pixels"] == .number(JSONNumber(Int64(50_010_000))))
        // 16,384 × 16,384 is within the axis limit but far over the pixel limit.
        let square = await harness.uploadMultipart(
            id: "sq", bytes: ImageFixture.webp(width: 16_384, height: 16_384), name: "sq.webp", type: "image/webp")
        #expect(try Self.error(square).details?["pixels"] == .number(JSONNumber(Int64(16_384 * 16_384))))
    }

    // MARK: Quota, rate

    @Test func theQuotaHoldsExactlyItsSizeAndThenIs507WithTheQuota() async throws {
        let harness = try AppHarness { $0.quotaBytes = 10 }
        #expect(await harness.uploadMultipart(id: "a", bytes: [UInt8](repeating: 0, count: 6)).status == 201)
        #expect(await harness.uploadMultipart(id: "b", bytes: [UInt8](repeating: 0, count: 4)).status == 201)
        let full = await harness.uploadMultipart(id: "c", bytes: [1])
        #expect(full.status == 507)
        let error = try Self.error(full)
        #expect(error.code == "quota_exceeded")
        #expect(
            try error.details?["quota"].map { try AgentQuota.decode($0, at: .root) }
                == AgentQuota(usedBytes: 10, limitBytes: 10))
        #expect(
            await harness.uploadMultipart(id: "a", bytes: [UInt8](repeating: 0, count: 6)).status == 200,
            "a retry stores nothing")
    }

    @Test func tooManyUploadsAre429WithRetryAfterAndARetryIsNotCounted() async throws {
        let harness = try AppHarness { $0.uploadsPerMinute = 1 }
        #expect(await harness.uploadMultipart(id: "a", bytes: [1]).status == 201)
        let limited = await harness.uploadMultipart(id: "b", bytes: [2])
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "60")
        #expect(await harness.uploadMultipart(id: "a", bytes: [1]).status == 200)
        harness.clock.advance(by: .seconds(60))
        #expect(await harness.uploadMultipart(id: "b", bytes: [2]).status == 201)
    }

    // MARK: Submitting attachments

    @Test func eightAttachmentsPassAndNineAre400NamingAttachments() async throws {
        let harness = try AppHarness()
        for index in 0..<9 { _ = await harness.uploadMultipart(id: "u-\(index)", bytes: [UInt8(index)]) }
        let eight = (0..<8).map { "u-\($0)" }
        #expect(await harness.submit("req-8", text: "", attachments: eight).status == 202)
        let nine = await harness.submit("req-9", text: "", attachments: eight + ["u-8"])
        #expect(nine.status == 400)
        #expect(try Self.error(nine).param == "attachments")
        #expect(try Self.error(nine).message.contains("at most 8"))
    }

    @Test func thirtyTwoMiBPerMessagePassAndOneByteMoreIs413WithLimitBytes() async throws {
        let harness = try AppHarness()
        for index in 0..<4 {
            let bytes = [UInt8](repeating: UInt8(index), count: 8 << 20)
            #expect(await streamed(harness, id: "big-\(index)", bytes: bytes).status == 201)
        }
        #expect(await harness.uploadMultipart(id: "one", bytes: [9]).status == 201)
        let four = (0..<4).map { "big-\($0)" }
        #expect(await harness.submit("req-32", text: "four", attachments: four).status == 202)
        let over = await harness.submit("req-33", text: "five", attachments: four + ["one"])
        #expect(over.status == 413)
        let error = try Self.error(over)
        #expect(error.code == "too_large")
        #expect(error.param == "attachments")
        #expect(error.details?["limitBytes"] == .number(JSONNumber(Int64(32 << 20))))
        #expect(error.details?["sizeBytes"] == .number(JSONNumber(Int64((32 << 20) + 1))))
        #expect(try await harness.history().messages.filter { $0.role == .user }.count == 1, "nothing was stored")
    }

    @Test func anIdNeverUploadedIs400UnknownUploadNamingItsPosition() async throws {
        let harness = try AppHarness()
        _ = await harness.uploadMultipart(id: "u-1", bytes: [1])
        let response = await harness.submit("req-1", attachments: ["u-1", "never"])
        #expect(response.status == 400)
        let error = try Self.error(response)
        #expect(error.code == "unknown_upload")
        #expect(error.param == "attachments[1]")
        let twice = await harness.submit("req-2", attachments: ["u-1", "u-1"])
        #expect(try Self.error(twice).param == "attachments[1]")
        #expect(try await harness.history().messages.isEmpty)
    }
}
