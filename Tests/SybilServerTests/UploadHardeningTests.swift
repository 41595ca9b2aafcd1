import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import SybilWire
import Testing

@testable import SybilServer

/// What a client may name an upload with, on every route that takes a name or an id
/// (`^[!-.0-~]{1,128}$`; file names without `/`, control characters, line separators or
/// bidirectional controls), and how an original is served: as a download, never as a page.
@Suite("Reference server: upload names and originals", .timeLimit(.minutes(2)))
struct UploadHardeningTests {
    private static func error(_ response: HTTPServerResponse) throws -> APIErrorBody {
        try APIErrorBody.decode(json(response), at: .root)
    }

    // MARK: Agent room

    @Test(
        "a file name that hides or reorders text is refused, multipart and raw",
        arguments: ["evil\u{202E}gpj.exe", "a\u{2028}b.txt", "a\u{2029}b.txt", "x\u{2066}y.txt", "..", ".", "a\u{85}b"])
    func agentFileNamesThatHideText(name: String) async throws {
        let harness = try AppHarness()
        let multipart = await harness.uploadMultipart(id: "u-1", bytes: [1], name: name)
        #expect(multipart.status == 400)
        #expect(try Self.error(multipart).param == "file")
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let raw = await harness.uploadRaw(id: "u-1", bytes: [1], name: encoded)
        #expect(raw.status == 400)
        #expect(try Self.error(raw).param == "X-File-Name")
        #expect(await harness.send("GET", "/agent/uploads/u-1/original").status == 404, "nothing was stored")
    }

    @Test(
        "X-File-Name that is not percent-encoded UTF-8 is refused, not stored with replacement characters",
        arguments: ["%FF.txt", "a%C3.txt", "a%2.txt", "a%ZZb.txt"])
    func rawFileNamesThatAreNotUTF8(name: String) async throws {
        let harness = try AppHarness()
        let response = await harness.uploadRaw(id: "u-1", bytes: [1], name: name)
        #expect(response.status == 400)
        let error = try Self.error(response)
        #expect(error.param == "X-File-Name")
        #expect(error.message == "X-File-Name must be a file name in percent-encoded UTF-8 without '/'.")
    }

    @Test func theOriginalOfAnIdOutsideThePatternIsA400NamingUploadId() async throws {
        let harness = try AppHarness()
        for target in [
            "/agent/uploads/a%20b/original", "/agent/uploads/a%0Ab/original", "/agent/uploads/%C3%A9/original",
        ] {
            let response = await harness.send("GET", target)
            #expect(response.status == 400, "\(target)")
            #expect(try Self.error(response).param == "uploadId")
        }
    }

    @Test func aSubmissionNamingAnIdOutsideThePatternIsA400NamingIt() async throws {
        let harness = try AppHarness()
        _ = await harness.uploadMultipart(id: "u-1", bytes: [1])
        let response = await harness.submit("req-1", text: "", attachments: ["u-1", "a b"])
        #expect(response.status == 400)
        let error = try Self.error(response)
        #expect(error.code == "invalid_parameter")
        #expect(error.param == "attachments[1]")
        #expect(error.message == "attachments[1] must be an id of 1 to 128 visible ASCII characters without '/'.")
    }

    @Test(
        "ids at the edges of [!-.0-~]: '!', '.', '0' and '~' pass; space, '/', DEL and non-ASCII fail",
        arguments: [
            ("!", true), (".", true), ("0", true), ("~", true), ("a b", false), ("a/b", false),
            ("a\u{7F}", false), ("é", false), ("", false),
        ])
    func uploadIdEdges(id: String, accepted: Bool) async throws {
        let harness = try AppHarness()
        let response = await harness.uploadMultipart(id: id, bytes: [1])
        #expect((response.status == 201) == accepted)
        #expect(UploadNames.isUploadId(id) == accepted)
    }

    // MARK: Originals

    @Test func anUploadedHTMLPageIsServedAsADownloadNotAsHTML() async throws {
        let harness = try AppHarness()
        let page = Array("<html><script>fetch('/api/agent/messages')</script></html>".utf8)
        #expect(await harness.uploadMultipart(id: "page", bytes: page, name: "x.html", type: "text/html").status == 201)
        let original = await harness.send("GET", "/agent/uploads/page/original")
        #expect(original.status == 200)
        #expect(original.bodyBytes == page)
        #expect(original.headers["Content-Type"] == "application/octet-stream")
        #expect(original.headers["X-Content-Type-Options"] == "nosniff")
        #expect(original.headers["Content-Disposition"] == "attachment; filename*=UTF-8''x.html")
        #expect(original.headers["Content-Security-Policy"] == "default-src 'none'; sandbox")
    }

    @Test(
        "safe types keep their Content-Type (text/plain with a charset), others are octet-stream",
        arguments: [
            ("image/png", "image/png"), ("image/jpeg", "image/jpeg"), ("image/heic", "image/heic"),
            ("application/pdf", "application/pdf"), ("text/plain", "text/plain; charset=utf-8"),
            ("image/svg+xml", "application/octet-stream"), ("application/xhtml+xml", "application/octet-stream"),
            ("text/javascript", "application/octet-stream"), ("application/octet-stream", "application/octet-stream"),
        ])
    func servedTypes(uploaded: String, served: String) async throws {
        let harness = try AppHarness()
        let bytes: [UInt8] =
            switch uploaded {
            case "image/png": ImageFixture.png(width: 2, height: 2)
            case "image/jpeg": ImageFixture.jpeg(width: 2, height: 2)
            default: [1, 2, 3]
            }
        #expect(await harness.uploadMultipart(id: "f", bytes: bytes, name: "f", type: uploaded).status == 201)
        let original = await harness.send("GET", "/agent/uploads/f/original")
        #expect(original.headers["Content-Type"] == served)
        #expect(original.headers["X-Content-Type-Options"] == "nosniff")
    }

    @Test func theFileNameIsInRFC8187FormWithEveryOtherBytePercentEncoded() async throws {
        let harness = try AppHarness()
        let name = "Prüfung 1;\"x\".txt"
        #expect(await harness.uploadMultipart(id: "n", bytes: [1], name: name).status == 201)
        let original = await harness.send("GET", "/agent/uploads/n/original")
        #expect(
            original.headers["Content-Disposition"] == "attachment; filename*=UTF-8''Pr%C3%BCfung%201%3B%22x%22.txt")
        #expect(
            AgentOriginalHeaders.contentDisposition(fileName: "a!#$&+-.^_`|~Z9")
                == "attachment; filename*=UTF-8''a!#$&+-.^_`|~Z9")
    }

    // MARK: Workspace chunked uploads

    private static let uploadKey = "files.chatAttachmentUpload:sess-42:8a3c5e0f9b1d2e47"

    private func begin(_ harness: AppHarness, fileName: String, path: String = "/tmp/a.bin") async
        -> HTTPServerResponse
    {
        await harness.rpc(
            "files.chatAttachmentUpload",
            #"{\#(AppHarness.chatParams), "fileName": \#(JSONWriter.quoted(fileName)), "mimeType": "text/plain", "path": \#(JSONWriter.quoted(path)), "size": 3}"#,
            callKey: "\(Self.uploadKey):begin")
    }

    @Test(
        "a workspace upload's file name follows the same rules",
        arguments: ["a\u{0}b.txt", "a\nb.txt", "a/b.txt", "evil\u{202E}gpj.exe", "..", "a\u{2028}b"])
    func workspaceFileNames(name: String) async throws {
        let harness = try AppHarness()
        let response = await begin(harness, fileName: name)
        #expect(response.status == 400)
        #expect(try Self.error(response).param == "params.fileName")
        #expect(await begin(harness, fileName: "notes.txt").status == 200, "the same key still works")
    }

    @Test func aWorkspaceUploadPathWithControlCharactersIsRefused() async throws {
        let harness = try AppHarness()
        let response = await begin(harness, fileName: "a.txt", path: "/tmp/a\u{1B}[2Jb.txt")
        #expect(response.status == 400)
        #expect(try Self.error(response).param == "params.path")
    }

    @Test(
        "chunk, finish and cancel name their upload with an id of the pattern",
        arguments: [
            (#"{"uploadId": "a b", "index": 0, "data": "AAAA"}"#, "chunk:0"),
            (#"{"uploadId": "a\nb", "chunkCount": 1}"#, "finish"),
            (#"{"uploadId": "\#(String(repeating: "u", count: 129))"}"#, "cancel"),
        ])
    func workspaceUploadIds(params: String, step: String) async throws {
        let harness = try AppHarness()
        let response = await harness.rpc("files.chatAttachmentUpload", params, callKey: "\(Self.uploadKey):\(step)")
        #expect(response.status == 400)
        let error = try Self.error(response)
        #expect(error.param == "params.uploadId")
        #expect(error.message == "params.uploadId must be an id of 1 to 128 visible ASCII characters without '/'.")
    }
}
