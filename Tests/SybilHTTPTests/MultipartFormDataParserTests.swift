import SybilHTTP
import Testing

/// The multipart/form-data rules, each fed whole and in every chunk size from 1 to 9 bytes:
/// the parts, or the error, never depend on how the body is split.
@Suite("Multipart form-data parser", .timeLimit(.minutes(2)))
struct MultipartFormDataParserTests {
    typealias Parser = MultipartFormDataParser
    typealias Failure = MultipartFormDataParser.Failure
    private static let type = "multipart/form-data; boundary=XyZ"
    private static let roomy = Parser.Limits(maxParts: 8, maxPartBytes: 1 << 20, maxBodyBytes: 4 << 20)

    /// The parts of `body` fed in pieces of `chunk` bytes (whole when `nil`), or the failure.
    private func parse(
        _ body: [UInt8], type: String = Self.type, limits: Parser.Limits = Self.roomy, chunk: Int? = nil,
        partLimit: (@Sendable (Parser.PartHead) -> Int)? = nil
    ) -> Result<[MultipartFormData.Part], Failure> {
        do throws(Failure) {
            var parser = try Parser(contentType: type, limits: limits, partLimit: partLimit)
            var parts: [MultipartFormData.Part] = []
            var ended = 0
            let step = chunk ?? max(body.count, 1)
            var start = 0
            repeat {
                let end = min(start + step, body.count)
                for event in try parser.feed(body[start..<end]) {
                    switch event {
                    case .partBegan(let head):
                        #expect(head.index == parts.count)
                        #expect(ended == parts.count, "a part begins only after the previous one ended")
                        parts.append(
                            .init(name: head.name, fileName: head.fileName, contentType: head.contentType, body: []))
                    case .partBytes(let bytes):
                        #expect(!bytes.isEmpty)
                        parts[parts.count - 1].body += bytes
                    case .partEnded: ended += 1
                    }
                }
                start = end
            } while start < body.count
            try parser.finish()
            #expect(parser.isComplete)
            #expect(ended == parts.count)
            return .success(parts)
        } catch {
            return .failure(error)
        }
    }

    private func parse(_ text: String, limits: Parser.Limits = Self.roomy) -> Result<[MultipartFormData.Part], Failure>
    {
        parse(Array(text.utf8), limits: limits)
    }

    /// The result of `body` whole, after checking that every split gives the same.
    private func splitIndependent(
        _ body: [UInt8], type: String = Self.type, limits: Parser.Limits = Self.roomy,
        partLimit: (@Sendable (Parser.PartHead) -> Int)? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Result<[MultipartFormData.Part], Failure> {
        let whole = parse(body, type: type, limits: limits, partLimit: partLimit)
        for size in 1...9 {
            let split = parse(body, type: type, limits: limits, chunk: size, partLimit: partLimit)
            #expect(split == whole, "chunk size \(size)", sourceLocation: sourceLocation)
        }
        return whole
    }

    private func splitIndependent(
        _ text: String, limits: Parser.Limits = Self.roomy, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Result<[MultipartFormData.Part], Failure> {
        splitIndependent(Array(text.utf8), limits: limits, sourceLocation: sourceLocation)
    }

    private func failureOf(_ result: Result<[MultipartFormData.Part], Failure>) -> Failure? {
        if case .failure(let failure) = result { return failure }
        return nil
    }

    private func parts(_ result: Result<[MultipartFormData.Part], Failure>) -> [MultipartFormData.Part]? {
        if case .success(let parts) = result { return parts }
        return nil
    }

    private static let uploadIdPart = MultipartFormData.Part(
        name: "uploadId", body: Array("0d9c6a4e-2b7f-4f0e-8b61-55a1c3e9d702".utf8))

    // MARK: Round trip

    @Test func readsWhatTheEncoderWritesByteByByteAsWhole() {
        // Content full of near-boundaries: CRLF, "--", the boundary without CRLF before it, a
        // delimiter cut short, and a CR right before the real delimiter.
        let content: [UInt8] = Array("line one\r\n-XyZ --XyZ\r\n-\r\n--Xy\r\n--".utf8) + [0, 255, 13]
        let form = MultipartFormData(
            boundary: "XyZ",
            parts: [
                Self.uploadIdPart,
                .init(
                    name: "file", fileName: "build log \"v2\" \\ final.txt", contentType: "text/plain", body: content),
            ])
        let result = splitIndependent(form.encoded(), type: form.contentType)
        #expect(parts(result) == form.parts)
    }

    @Test func emptyPartsAndEmptyContentAreKept() {
        let form = MultipartFormData(
            boundary: "XyZ", parts: [.init(name: "a", body: []), .init(name: "b", fileName: "e", body: [])])
        #expect(parts(splitIndependent(form.encoded())) == form.parts)
    }

    @Test func parseReadsAWholeBodyInOneCall() throws {
        let form = MultipartFormData(boundary: "XyZ", parts: [Self.uploadIdPart])
        #expect(try Parser.parse(form.encoded(), contentType: form.contentType, limits: Self.roomy) == form.parts)
    }

    // MARK: Boundary

    @Test(
        "the boundary comes from the Content-Type parameter, a token or a quoted string",
        arguments: [
            ("multipart/form-data; boundary=XyZ", "XyZ"),
            ("Multipart/Form-Data;BOUNDARY=XyZ", "XyZ"),
            ("multipart/form-data; charset=utf-8; boundary=\"a (b) c:d=e?f\"", "a (b) c:d=e?f"),
            (
                "multipart/form-data; boundary=\"----WebKitFormBoundary7MA4YWxkTrZu0gW\"",
                "----WebKitFormBoundary7MA4YWxkTrZu0gW"
            ),
            ("multipart/form-data; boundary=" + String(repeating: "b", count: 70), String(repeating: "b", count: 70)),
        ])
    func boundaryFromContentType(type: String, boundary: String) throws {
        #expect(try Parser.boundary(ofContentType: type) == boundary)
    }

    @Test(
        "a Content-Type without a usable boundary is refused",
        arguments: [
            "multipart/mixed; boundary=XyZ", "multipart/form-data", "multipart/form-data; boundary=\"\"",
            "multipart/form-data; boundary=" + String(repeating: "b", count: 71),
            "multipart/form-data; boundary=\"ab \"",
            "multipart/form-data; boundary=\"a{b\"", "multipart/form-data; boundary=a; boundary=b",
            "multipart/form-data; boundary=\"open", "multipart/form-data; boundary", "application/octet-stream", "",
        ])
    func badContentType(type: String) {
        #expect(throws: Failure.self) { try Parser.boundary(ofContentType: type) }
        let failure = failureOf(parse(Array("--XyZ--".utf8), type: type))
        #expect(failure?.kind == .contentType)
        #expect(failure?.message.isEmpty == false)
    }

    // MARK: Delimiters, preamble and epilogue

    @Test func preambleAndEpilogueAreSkipped() {
        let body =
            "This is the preamble.\r\n--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue\r\n--XyZ--\r\nThe epilogue, --XyZ\r\n--XyZ-- ignored."
        #expect(parts(splitIndependent(body)) == [.init(name: "a", body: Array("value".utf8))])
    }

    @Test func transportPaddingAfterABoundaryIsAllowed() {
        let body = "--XyZ \t \r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--XyZ-- \t"
        #expect(parts(splitIndependent(body)) == [.init(name: "a", body: [0x76])])
    }

    @Test func aBoundaryNeedsACRLFBeforeIt() {
        // "x--XyZ" is not a delimiter: the first one is the final boundary, so there are no parts.
        let failure = failureOf(
            splitIndependent("x--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--XyZ--"))
        #expect(failure?.kind == .malformed)
        #expect(failure?.message == "the body has no parts")
        #expect(failureOf(splitIndependent("x--XyZ\r\n"))?.message == "the body ended before its first boundary")
    }

    @Test(
        "boundary lines end in CRLF; anything else after a boundary is refused",
        arguments: [
            (
                "--XyZ\nContent-Disposition: form-data; name=\"a\"\n\nv\n--XyZ--",
                "a boundary line has byte 0xa before its CRLF"
            ),
            (
                "--XyZ\rContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--XyZ--",
                "a boundary line has byte 0xd before its CRLF"
            ),
            (
                "--XyZ x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--XyZ--",
                "a boundary line has 'x' before its CRLF"
            ),
            (
                "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--XyZz\r\n",
                "a boundary line has 'z' before its CRLF"
            ),
            (
                "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--XyZ-x",
                "a boundary is followed by 'x' after '-'"
            ),
            (
                "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--XyZ--x",
                "the final boundary has 'x' after its '--'"
            ),
            (
                "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--XyZ--\n",
                "the final boundary has byte 0xa after its '--'"
            ),
            ("--XyZ--\r\n", "the body has no parts"),
        ])
    func boundaryLines(body: String, message: String) {
        let failure = failureOf(splitIndependent(body))
        #expect(failure?.kind == .malformed)
        #expect(failure?.message == message)
    }

    @Test(
        "a body that ends before its final boundary is incomplete, and says where it ended",
        arguments: [
            ("", "the body ended before its first boundary"),
            ("--XyZ", "the body ended without the final boundary"),
            ("--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n", "the body ended inside the headers of part 0"),
            (
                "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue",
                "the body ended inside part 0 (\"a\") without the final boundary"
            ),
            (
                "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue\r\n--XyZ",
                "the body ended without the final boundary"
            ),
            (
                "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue\r\n--XyZ-",
                "the body ended without the final boundary"
            ),
        ])
    func missingFinalBoundary(body: String, message: String) {
        let failure = failureOf(splitIndependent(body))
        #expect(failure?.kind == .incomplete)
        #expect(failure?.message == message)
    }

    @Test func theFinalBoundaryMayEndTheBodyWithoutCRLF() {
        #expect(
            parts(splitIndependent("--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n\r\n--XyZ--")) == [
                .init(name: "a", body: [])
            ])
    }

    // MARK: Part headers

    @Test func fileNamesContentTypesAndIgnoredHeaders() {
        let body = [
            "--XyZ",
            "content-disposition: form-data; name=\"file\"; filename=\"a%22b%5Cc.txt\"",
            "Content-Type: Text/Plain; charset=utf-8",
            "X-Ignored: anything at all",
            "Content-Transfer-Encoding: binary",
            "",
            "x",
            "--XyZ",
            "Content-Disposition: form-data; name=\"photo\"; filename=\"fallback.jpg\"; filename*=UTF-8''%E2%82%AC%20rates.jpg",
            "Content-Type: image/jpeg",
            "",
            "y",
            "--XyZ",
            "Content-Disposition: form-data; name=plain",
            "",
            "z",
            "--XyZ--",
        ].joined(separator: "\r\n")
        #expect(
            parts(splitIndependent(body)) == [
                .init(name: "file", fileName: "a\"b\\c.txt", contentType: "text/plain", body: [0x78]),
                .init(name: "photo", fileName: "€ rates.jpg", contentType: "image/jpeg", body: [0x79]),
                .init(name: "plain", body: [0x7A]),
            ])
    }

    @Test(
        "part headers are strict and the error names the part and the rule",
        arguments: [
            ("X-Only: 1", "part 0: Content-Disposition is missing"),
            // No header lines at all: the empty block ends right after the boundary line.
            ("", "part 0: Content-Disposition is missing"),
            (
                "Content-Disposition: attachment; name=\"a\"",
                "part 0: Content-Disposition must be form-data, got \"attachment\""
            ),
            ("Content-Disposition: form-data", "part 0: Content-Disposition has no name"),
            (
                "Content-Disposition: form-data; name=\"a\"\r\nContent-Disposition: form-data; name=\"b\"",
                "part 0: Content-Disposition appears twice"
            ),
            (
                "Content-Disposition: form-data; name=\"a\"; name=\"b\"",
                "part 0: Content-Disposition parameter name appears twice"
            ),
            (
                "Content-Disposition: form-data; name=\"a",
                "part 0: Content-Disposition parameter name has an unterminated quoted string"
            ),
            (
                "Content-Disposition: form-data; name",
                "part 0: Content-Disposition has a parameter that is not name=value"
            ),
            (
                "Content-Disposition: form-data;\r\n name=\"a\"",
                "part 0: a header line starts with white space (folded lines are not allowed)"
            ),
            ("Content-Disposition form-data", "part 0: the header line \"Content-Disposition form-data\" has no colon"),
            (
                "Bad Name: x\r\nContent-Disposition: form-data; name=\"a\"",
                "part 0: the header name \"Bad Name\" is not a token"
            ),
            // The heads' field-line reader names white space before the colon (RFC 9112 §5.1).
            (
                "Content-Disposition : form-data; name=\"a\"",
                "part 0: white space between the header name \"Content-Disposition\" and its colon"
            ),
            (": form-data; name=\"a\"", "part 0: a header line has no name before its colon"),
            ("Content-Disposition: form-data; name=\"a\"\nX: 1", "part 0: a bare LF in the headers"),
            ("Content-Disposition: form-data; name=\"a\"\rX: 1", "part 0: a bare CR in the headers"),
            ("Content-Disposition: form-data; name=\"a\"\u{0}", "part 0: a NUL byte in the headers"),
            (
                "Content-Disposition: form-data; name=\"a\"\r\nContent-Type: text",
                "part 0: Content-Type must be type/subtype, got \"text\""
            ),
            (
                "Content-Disposition: form-data; name=\"a\"\r\nContent-Type: text/plain\r\nContent-Type: text/html",
                "part 0: Content-Type appears twice"
            ),
            (
                "Content-Disposition: form-data; name=\"a\"\r\nContent-Transfer-Encoding: base64",
                "part 0: Content-Transfer-Encoding \"base64\" is not supported; send the bytes as they are"
            ),
            (
                "Content-Disposition: form-data; name=\"a\"; filename*=ISO-8859-1''caf%E9",
                "part 0: filename* must be UTF-8'' followed by a percent-encoded UTF-8 name (RFC 8187)"
            ),
            (
                "Content-Disposition: form-data; name=\"a\"; filename*=UTF-8''%E2%82",
                "part 0: filename* must be UTF-8'' followed by a percent-encoded UTF-8 name (RFC 8187)"
            ),
            (
                "Content-Disposition: form-data; name=\"a\"; filename*=UTF-8''%zz",
                "part 0: filename* must be UTF-8'' followed by a percent-encoded UTF-8 name (RFC 8187)"
            ),
        ])
    func badHeaders(headers: String, message: String) {
        let failure = failureOf(splitIndependent("--XyZ\r\n\(headers)\r\n\r\nv\r\n--XyZ--"))
        #expect(failure?.kind == .malformed)
        #expect(failure?.partIndex == 0)
        #expect(failure?.message == message)
    }

    @Test func headersThatAreNotUTF8AreRefused() {
        let body =
            Array("--XyZ\r\nContent-Disposition: form-data; name=\"".utf8) + [0xC3, 0x28]
            + Array("\"\r\n\r\nv\r\n--XyZ--".utf8)
        #expect(failureOf(splitIndependent(body))?.message == "part 0: the content-disposition header is not UTF-8")
    }

    @Test func aHeaderBlockOfExactlyTheLimitPassesAndOneByteMoreFails() {
        let headers = "Content-Disposition: form-data; name=\"a\"\r\nX-Pad: 0123456789"
        let blockSize = headers.utf8.count + 4
        let body = "--XyZ\r\n\(headers)\r\n\r\nv\r\n--XyZ--"
        var limits = Self.roomy
        limits.maxHeaderBytes = blockSize
        #expect(parts(splitIndependent(body, limits: limits))?.count == 1)
        limits.maxHeaderBytes = blockSize - 1
        let failure = failureOf(splitIndependent(body, limits: limits))
        #expect(failure?.kind == .headerTooLarge)
        #expect(failure?.limit == blockSize - 1)
        #expect(failure?.message == "the headers of part 0 are larger than \(blockSize - 1) bytes")
    }

    @Test func anEndlessHeaderFailsAtTheLimitWithoutWaitingForItsEnd() throws {
        var parser = try Parser(contentType: Self.type, limits: Self.roomy)
        _ = try parser.feed(Array("--XyZ\r\nX-Pad: ".utf8))
        let chunk = [UInt8](repeating: 0x61, count: 1024)
        var fed = 0
        let error = #expect(throws: Failure.self) {
            while fed < 1 << 20 {
                _ = try parser.feed(chunk)
                fed += chunk.count
            }
        }
        #expect(error?.kind == .headerTooLarge)
        #expect(fed < 8 << 10, "stopped at the 8 KiB default, after \(fed) bytes")
    }

    // MARK: Limits

    private func form(_ count: Int, size: Int = 1) -> [UInt8] {
        MultipartFormData(
            boundary: "XyZ",
            parts: (0..<count).map { .init(name: "p\($0)", body: [UInt8](repeating: 0x2D, count: size)) }
        ).encoded()
    }

    @Test func atMostMaxPartsParts() {
        let limits = Parser.Limits(maxParts: 3, maxPartBytes: 100, maxBodyBytes: 1 << 20)
        #expect(parts(splitIndependent(form(3), limits: limits))?.count == 3)
        let failure = failureOf(splitIndependent(form(4), limits: limits))
        #expect(failure?.kind == .tooManyParts)
        #expect(failure?.partIndex == 3)
        #expect(failure?.limit == 3)
        #expect(failure?.message == "the body has more than 3 parts")
    }

    @Test func aPartOfExactlyItsLimitPassesAndOneByteMoreFails() {
        let limits = Parser.Limits(maxParts: 3, maxPartBytes: 40, maxBodyBytes: 1 << 20)
        #expect(parts(splitIndependent(form(2, size: 40), limits: limits))?.map(\.body.count) == [40, 40])
        let failure = failureOf(splitIndependent(form(2, size: 41), limits: limits))
        #expect(failure?.kind == .partTooLarge)
        #expect(failure?.partIndex == 0)
        #expect(failure?.part == Parser.PartHead(index: 0, name: "p0"))
        #expect(failure?.limit == 40)
        #expect(failure?.message == "part 0 (\"p0\") is larger than 40 bytes")
    }

    @Test func eachPartCanHaveItsOwnLimitFromItsHead() {
        let body = MultipartFormData(
            boundary: "XyZ",
            parts: [
                .init(name: "id", body: Array("abcd".utf8)),
                .init(name: "file", fileName: "a.png", contentType: "image/png", body: [UInt8](repeating: 7, count: 9)),
            ]
        ).encoded()
        let limit: @Sendable (Parser.PartHead) -> Int = { head in
            head.name == "id" ? 4 : head.contentType == "image/png" ? 8 : 100
        }
        let failure = failureOf(splitIndependent(body, partLimit: limit))
        #expect(failure?.kind == .partTooLarge)
        #expect(failure?.part == Parser.PartHead(index: 1, name: "file", fileName: "a.png", contentType: "image/png"))
        #expect(failure?.limit == 8)
        let loose: @Sendable (Parser.PartHead) -> Int = { head in head.name == "id" ? 4 : 9 }
        #expect(parts(splitIndependent(body, partLimit: loose))?.count == 2)
    }

    @Test func aBodyOfExactlyTheTotalLimitPassesAndOneByteMoreFails() {
        let body = form(2, size: 10)
        var limits = Self.roomy
        limits.maxBodyBytes = body.count
        #expect(parts(splitIndependent(body, limits: limits))?.count == 2)
        limits.maxBodyBytes = body.count - 1
        let failure = failureOf(splitIndependent(body, limits: limits))
        #expect(failure?.kind == .bodyTooLarge)
        #expect(failure?.limit == body.count - 1)
        // The epilogue counts too.
        limits.maxBodyBytes = body.count
        #expect(failureOf(splitIndependent(body + [0x20], limits: limits))?.kind == .bodyTooLarge)
    }

    @Test func anOversizedPartFailsAsItsBytesArriveNotAtTheEnd() throws {
        let limits = Parser.Limits(maxParts: 2, maxPartBytes: 4096, maxBodyBytes: 64 << 20)
        var parser = try Parser(contentType: Self.type, limits: limits)
        _ = try parser.feed(Array("--XyZ\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\n".utf8))
        let chunk = [UInt8](repeating: 0x41, count: 1000)
        var delivered = 0
        let error = #expect(throws: Failure.self) {
            for _ in 0..<(32 << 10) {
                for case .partBytes(let bytes) in try parser.feed(chunk) { delivered += bytes.count }
            }
        }
        #expect(error?.kind == .partTooLarge)
        #expect(delivered <= 4096)
        #expect(parser.bytesReceived < 4096 + 2 * chunk.count + 200, "stopped after \(parser.bytesReceived) bytes")
        // A failed parser stays failed.
        let failed = try #require(error)
        #expect(throws: failed) { try parser.feed([0x41]) }
        #expect(throws: failed) { try parser.finish() }
    }

    @Test func aBodyTooLargeStopsAtTheLimitEvenInsideOneChunk() throws {
        let limits = Parser.Limits(maxParts: 2, maxPartBytes: 1 << 20, maxBodyBytes: 100)
        var parser = try Parser(contentType: Self.type, limits: limits)
        let error = #expect(throws: Failure.self) { try parser.feed([UInt8](repeating: 0x41, count: 1 << 20)) }
        #expect(error?.kind == .bodyTooLarge)
        #expect(parser.bytesReceived == 100)
    }

    @Test func theFirstErrorInBodyOrderWinsOverALaterLimit() {
        // A malformed header comes before the byte that breaks the total limit.
        let body = Array("--XyZ\r\nContent-Disposition form-data\r\n\r\n".utf8) + [UInt8](repeating: 0x41, count: 200)
        let limits = Parser.Limits(maxParts: 2, maxPartBytes: 1 << 20, maxBodyBytes: 100)
        #expect(
            failureOf(splitIndependent(body, limits: limits))?.message
                == "part 0: the header line \"Content-Disposition form-data\" has no colon")
    }
}
