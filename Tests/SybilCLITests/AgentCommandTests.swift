import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilImaging
import SybilNet
import SybilServer
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilCLI

/// `sybil agent send|tail|retry|resend-all|discard|draft|download|preview` against the reference server over real
/// sockets: each command runs the same composer, outbox, draft and room the apps use.
@Suite("sybil agent", .timeLimit(.minutes(2)))
struct AgentCommandTests {
    private static let token = "cli-token"

    /// A loopback address of this suite's own: other tests' servers bind 127.0.0.1.
    private static let privateLoopback = "127.0.0.77"

    private func server(
        host: String = "127.0.0.1", port: Int = 0, storage: SybilServerOptions.Storage = .inMemory,
        _ configure: (inout SybilServerOptions) -> Void = { _ in }
    ) throws -> ReferenceServer {
        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        options.storage = storage
        configure(&options)
        var configuration = HTTPServer.Configuration()
        configuration.host = host
        configuration.port = port
        return try ReferenceServer(options: options, configuration: configuration)
    }

    private func io(_ url: URL, data: URL) -> TestIO {
        TestIO(environment: [
            "SYBIL_API_URL": url.absoluteString, "SYBIL_TOKEN": Self.token, "XDG_DATA_HOME": data.path,
        ])
    }

    private func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-agent-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A file of `size` bytes (sparse, so 32 MiB cost nothing).
    private func file(_ directory: URL, _ name: String, size: Int64) throws -> String {
        let path = directory.appendingPathComponent(name).path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        return path
    }

    @Test func aSentMessageIsConfirmedByItsEchoAndTailShowsItWithoutToolTraffic() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let data = temporaryDirectory()
        let api = server.baseURL.appendingPathComponent("api")
        let send = io(api, data: data)
        #expect(await send.run("agent", "send", "Summarise", "the", "build") == 0)
        #expect(send.stdout.hasPrefix("confirmed "))
        let tail = io(api, data: data)
        #expect(await tail.run("agent", "tail", "--no-follow") == 0)
        let lines = tail.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("── ") == true)
        #expect(lines.contains { $0.hasSuffix("] user: Summarise the build") })
        #expect(!lines.contains { $0.contains("] tool: ") })
    }

    @Test func anAttachmentIsUploadedShownAndDownloadedVerified() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let data = temporaryDirectory()
        let note = data.appendingPathComponent(".build.log")
        try Data("linker failed twice\n".utf8).write(to: note)
        let send = io(server.baseURL, data: data)
        #expect(await send.run("agent", "send", "--attach", note.path, "") == 0)
        #expect(send.stderr.contains(".build.log uploaded (20 bytes"))
        let tail = io(server.baseURL, data: data)
        #expect(await tail.run("agent", "tail", "--no-follow") == 0)
        let card = try #require(tail.stdout.split(separator: "\n").first { $0.contains("attachment: .build.log") })
        let uploadId = try #require(card.split(separator: " ").last.map(String.init))
        let output = data.appendingPathComponent("copy.log").path
        let download = io(server.baseURL, data: data)
        #expect(await download.run("agent", "download", uploadId, "-o", output) == 0)
        #expect(FileManager.default.contents(atPath: output) == Data("linker failed twice\n".utf8))
        let again = io(server.baseURL, data: data)
        #expect(await again.run("agent", "download", uploadId, "-o", output) == 73)
        let unknown = io(server.baseURL, data: data)
        #expect(await unknown.run("agent", "download", "no-such-upload") == 65)
    }

    @Test(.enabled(if: HEIFCodec.canEncode, "this libheif has no HEVC encoder to make the photo"))
    func aHEICPhotoIsSentAsABoundedJPEGAndAHEICFileKeepsItsBytes() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let data = temporaryDirectory()
        var pixels: [UInt8] = []
        for y in 0..<48 {
            for x in 0..<64 { pixels += [UInt8(x * 4), UInt8(y * 5), 128] }
        }
        let heic = try HEIFCodec.encode(RGBImage(width: 64, height: 48, pixels: pixels), quality: 0.8)
        let path = data.appendingPathComponent("IMG_0001.HEIC")
        try Data(heic).write(to: path)
        let send = io(server.baseURL, data: data)
        #expect(await send.run("agent", "send", "--photo", path.path, "--attach", path.path, "Two ways") == 0)
        let api = AgentRoomHTTPClient(
            base: try AgentAPIBase(server.baseURL), http: DefaultHTTPClient.make(redirects: .deliver),
            tokens: TokenProvider(
                current: TokenLocation(store: InMemorySecretStore(["t": Self.token]), account: "t")),
            random: SeededRandomSource(seed: 3))
        let message = try #require(
            try await api.messages(after: nil, before: nil, limit: 10).messages.first { $0.text == "Two ways" })
        #expect(message.attachments.map(\.fileName) == ["IMG_0001.jpg", "IMG_0001.HEIC"])
        let photo = try #require(message.attachments.first)
        #expect(photo.mimeType == "image/jpeg")
        let jpeg = try await api.original(of: photo)
        #expect(RasterImageHeader.read(jpeg) == RasterImageHeader(format: .jpeg, width: 64, height: 48))
        let file = try #require(message.attachments.last)
        #expect(try await api.original(of: file) == heic)
    }

    private func roomAPI(_ server: ReferenceServer) throws -> AgentRoomHTTPClient {
        AgentRoomHTTPClient(
            base: try AgentAPIBase(server.baseURL), http: DefaultHTTPClient.make(redirects: .deliver),
            tokens: TokenProvider(current: TokenLocation(store: InMemorySecretStore(["t": Self.token]), account: "t")),
            random: SeededRandomSource(seed: 3))
    }

    @Test func aFailedSendKeepsItsDraftForTheNextRunAndDraftClearDropsIt() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let data = temporaryDirectory()
        let notes = data.appendingPathComponent("notes.txt")
        try Data("fine\n".utf8).write(to: notes)
        let broken = data.appendingPathComponent("broken.png")
        try Data("not a picture".utf8).write(to: broken)
        let first = io(server.baseURL, data: data)
        #expect(await first.run("agent", "send", "--attach", notes.path, "--attach", broken.path, "report") == 65)
        #expect(first.stderr.contains("broken.png"))
        #expect(first.stderr.contains("The draft is kept for the next run"))

        let show = io(server.baseURL, data: data)
        #expect(await show.run("agent", "draft", "show") == 0)
        #expect(show.stdout.contains("caption: report"))
        #expect(show.stdout.contains("1. notes.txt · text/plain · 5 bytes · uploaded"), "\(show.stdout)")
        #expect(
            show.stdout.contains("2. broken.png · image/png · failed: broken.png is not a valid PNG image"),
            "the refused file is kept with its failed state and why: \(show.stdout)")

        let second = io(server.baseURL, data: data)
        #expect(await second.run("agent", "send", "hello") == 0)
        #expect(
            second.stderr.contains(
                "the draft keeps 2 earlier attachment(s): notes.txt (uploaded), broken.png (failed: "),
            "\(second.stderr)")
        let messages = try await roomAPI(server).messages(after: nil, before: nil, limit: 10).messages.filter {
            $0.role == .user
        }
        #expect(messages.map(\.text) == ["hello"], "the refused send sent nothing")
        #expect(messages.first?.attachments.map(\.fileName) == ["notes.txt"], "the kept upload went with it")
        let kept = io(server.baseURL, data: data)
        #expect(await kept.run("agent", "draft") == 0)
        #expect(
            kept.stdout.hasPrefix("caption: (none)\n1. broken.png · image/png · failed: "),
            "the failed file stays for the next message, never blocking text: \(kept.stdout)")

        let third = io(server.baseURL, data: data)
        #expect(await third.run("agent", "send", "--attach", broken.path, "again") == 65)
        let clear = io(server.baseURL, data: data)
        #expect(await clear.run("agent", "draft", "clear") == 0)
        #expect(clear.stderr.contains("uploaded originals stay on the server"))
        let after = io(server.baseURL, data: data)
        #expect(await after.run("agent", "draft", "show") == 0)
        #expect(after.stdout == "The draft is empty.\n")
    }

    @Test func aMessageRefusedForGoodNamesDiscardAndDiscardLetsWhatItHeldGoOn() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let data = temporaryDirectory()
        // A message naming an upload the server never had: refused for good (400 unknown_upload).
        do {
            let outbox = try await AgentOutbox.open(
                directory: data.path + "/sybil/client/agent", baseURL: server.baseURL,
                ids: GhostIDs(), now: { 1_000 })
            let ghost = AgentAttachment(
                uploadId: "ghost-upload", fileName: "ghost.txt", mimeType: "text/plain", size: 1,
                sha256: String(repeating: "0", count: 64))
            try await outbox.enqueue(text: "with a ghost", attachments: [ghost])
        }
        let send = io(server.baseURL, data: data)
        #expect(await send.run("agent", "send", "--wait", "20", "after the ghost") == 65)
        #expect(send.stderr.contains("Sending it again cannot succeed; Discard it (run `sybil agent discard ghost-1`)"))
        let discard = io(server.baseURL, data: data)
        #expect(await discard.run("agent", "discard") == 0)
        #expect(discard.stdout.hasPrefix("with a ghost\nconfirmed "), "its text is printed to write again")
        #expect(discard.stderr.contains("discarded “with a ghost”"))
        let messages = try await roomAPI(server).messages(after: nil, before: nil, limit: 10).messages.filter {
            $0.role == .user
        }
        #expect(messages.map(\.text) == ["after the ghost"], "what it held went on")
        let none = io(server.baseURL, data: data)
        #expect(await none.run("agent", "discard") == 65)
        #expect(none.stderr.contains("no message was refused for good"))
    }

    @Test func previewPrintsTextHTMLAndSVGAsTextAndAnImagesTypeAndSize() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let data = temporaryDirectory()
        let page = data.appendingPathComponent("page.html")
        try Data("<script>alert(1)</script><b>bold</b>\u{1B}]52;c;evil\u{07}\n".utf8).write(to: page)
        let picture = data.appendingPathComponent("dot.png")
        try Data(PNGCodec.encode(pixels: Array(repeating: 200, count: 18), width: 3, height: 2, alpha: false)).write(
            to: picture)
        let send = io(server.baseURL, data: data)
        #expect(await send.run("agent", "send", "--attach", page.path, "--attach", picture.path, "look") == 0)
        let message = try #require(
            try await roomAPI(server).messages(after: nil, before: nil, limit: 10).messages.first { $0.text == "look" })
        let ids = message.attachments.map(\.uploadId)
        try #require(ids.count == 2)

        let html = io(server.baseURL, data: data)
        #expect(await html.run("agent", "preview", ids[0]) == 0)
        #expect(html.stdout.contains("page.html · text/html"))
        #expect(html.stdout.contains("never rendered"))
        #expect(html.stdout.contains("<script>alert(1)</script><b>bold</b>"), "the markup is shown as text")
        #expect(!html.stdout.contains("\u{1B}"), "control characters are replaced")
        let image = io(server.baseURL, data: data)
        #expect(await image.run("agent", "preview", ids[1]) == 0)
        #expect(image.stdout.contains("image: PNG, 3 × 2 pixels"), "\(image.stdout)")
        let unknown = io(server.baseURL, data: data)
        #expect(await unknown.run("agent", "preview", "no-such-upload") == 65)
    }

    @Test func filesOverACeilingAreRefusedBeforeAnythingStarts() async throws {
        let data = temporaryDirectory()
        // No server at all: the check runs before one is needed.
        let nowhere = URL(string: "http://127.0.0.1:9")!
        let eight = try file(data, "eight.bin", size: 8 << 20)
        #expect(AgentSendCommand.precheck([(eight, .file)]) == nil)
        let over = try file(data, "over.bin", size: (8 << 20) + 1)
        let overRun = io(nowhere, data: data)
        #expect(await overRun.run("agent", "send", "--attach", over, "hi") == 65)
        #expect(overRun.stderr.contains("at most 8 MiB"))
        #expect(overRun.stderr.contains("Nothing was sent."))
        let image = try file(data, "photo.png", size: (6 << 20) + 1)
        #expect(AgentSendCommand.precheck([(image, .file)])?.0 == .invalidData)
        let fullImage = try file(data, "full.png", size: 6 << 20)
        #expect(AgentSendCommand.precheck([(fullImage, .file)]) == nil)
        let four = try (1...4).map { try file(data, "part\($0).bin", size: 8 << 20) }
        #expect(AgentSendCommand.precheck(four.map { ($0, .file) }) == nil)
        let extra = try file(data, "one.bin", size: 1)
        #expect(AgentSendCommand.precheck((four + [extra]).map { ($0, .file) })?.0 == .invalidData)
        let nine = try (1...9).map { try file(data, "small\($0).txt", size: 1) }
        #expect(AgentSendCommand.precheck(nine.prefix(8).map { ($0, .file) }) == nil)
        let nineRun = io(nowhere, data: data)
        #expect(await nineRun.run(["agent", "send"] + nine.flatMap { ["--attach", $0] } + ["hi"]) == 65)
        #expect(nineRun.stderr.contains("At most 8 files"))
        let long = io(nowhere, data: data)
        let text = String(repeating: "a", count: AgentRoomSubmission.maxTextBytes + 1)
        #expect(await long.run("agent", "send", text) == 65)
        #expect(long.stderr.contains("at most 131072"))
        #expect(AgentSendCommand.precheck([], text: String(repeating: "a", count: 131_072)) == nil)
        let missing = io(nowhere, data: data)
        #expect(await missing.run("agent", "send", "--attach", data.appendingPathComponent("gone").path, "hi") == 66)
    }

    @Test func aSendThatFailedStaysInTheOutboxAndRetrySendsItOnce() async throws {
        let data = temporaryDirectory()
        let serverData = temporaryDirectory()
        // The first send is refused at a loopback address no other test binds, so no other
        // test's server can take the port before this test's own server starts there.
        var refusing: RefusingPort? = try RefusingPort(host: Self.privateLoopback)
        let port = Int(try #require(refusing?.port))
        let url = URL(string: "http://\(Self.privateLoopback):\(port)/api/")!
        let failing = io(url, data: data)
        #expect(await failing.run("agent", "send", "--wait", "5", "Are you there?") == 69)
        #expect(failing.stderr.contains("failed"))
        refusing = nil
        let server = try server(host: Self.privateLoopback, port: port, storage: .directory(serverData.path))
        defer { Task { await server.shutdown() } }
        let retry = io(url, data: data)
        #expect(await retry.run("agent", "retry") == 0)
        #expect(retry.stdout.hasPrefix("confirmed "))
        let nothing = io(url, data: data)
        #expect(await nothing.run("agent", "retry") == 65)
        #expect(nothing.stderr.contains("no failed message"))
        let all = io(url, data: data)
        #expect(await all.run("agent", "resend-all") == 0)
        let tail = io(url, data: data)
        #expect(await tail.run("agent", "tail", "--no-follow") == 0)
        #expect(tail.stdout.split(separator: "\n").filter { $0.hasSuffix("] user: Are you there?") }.count == 1)
    }

    @Test func tailFollowsRepliesAndClearsUnreadUntilStopped() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let data = temporaryDirectory()
        let tail = io(server.baseURL, data: data)
        let running = Task { await tail.run("agent", "tail") }
        await tail.waitForStderr(containing: "following the room")
        let send = io(server.baseURL, data: data)
        #expect(await send.run("agent", "send", "Anything new?") == 0)
        await tail.waitForOutput(containing: "] user: Anything new?")
        await tail.waitForOutput(containing: "] assistant: ")
        // The reply was shown at the bottom: the shared read clears it.
        await tail.waitForStderr(containing: "0 unread")
        tail.terminate()
        #expect(await running.value == 0)
        #expect(!tail.stdout.contains("] tool: "))
    }

    @Test func usageErrorsNameTheProblem() async {
        let test = TestIO()
        #expect(await test.run("agent", "send") == 64)
        #expect(test.stderr.contains("needs TEXT"))
        let wait = TestIO()
        #expect(await wait.run("agent", "send", "--wait", "0", "hi") == 64)
        let count = TestIO()
        #expect(await count.run("agent", "tail", "--count", "0") == 64)
        let download = TestIO()
        #expect(await download.run("agent", "download") == 64)
        let unknown = TestIO()
        #expect(await unknown.run("agent", "dance") == 64)
        let draft = TestIO()
        #expect(await draft.run("agent", "draft", "burn") == 64)
        #expect(draft.stderr.contains("show, clear or retry"))
        let preview = TestIO()
        #expect(await preview.run("agent", "preview", "../etc") == 64)
        let discard = TestIO()
        #expect(await discard.run("agent", "discard", "a", "b") == 64)
    }
}

/// Request ids for the message the test puts in the outbox by hand.
private struct GhostIDs: IDGenerator {
    func makeID() -> String { "ghost-1" }
}
