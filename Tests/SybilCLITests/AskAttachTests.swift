import Foundation
import SybilCore
import SybilStore
import SybilWire
import Testing

@testable import SybilCLI

/// `sybil ask --attach FILE` over real sockets (seed 003: ordinary chats keep inline
/// attachments): a text file inline in the message's text, an image as an OpenAI `image_url`
/// part with a base64 `data:` URL, both kept in the history and sent again by `-c`; a file
/// that cannot be attached sends and saves nothing.
@Suite("sybil ask --attach", .timeLimit(.minutes(2)))
struct AskAttachTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-attach-\(UUID().uuidString)")
        .path
    var environment: [String: String] { ["XDG_DATA_HOME": home + "/data", "HOME": "/nonexistent", "SYBIL_TOKEN": "t"] }

    /// A PNG signature and a little more: enough for the header check, which is all `--attach` reads.
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 1, 2, 3]

    func write(_ bytes: [UInt8], named name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let path = home + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The `messages` of each chat request the peer received, as JSON values.
    func sentMessages(_ peer: OpenAIPeer) throws -> [[JSONValue]] {
        try peer.server.received.filter { $0.requestLine.hasPrefix("POST") }.map { request in
            try JSONObjectReader(try JSONReader().parse(request.body), at: .root).array("messages")
        }
    }

    @Test func aTextFileGoesInlineAndAnImageAsADataURLPartAndContinueSendsThemAgain() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        let notes = try write(Array("buy milk\n".utf8), named: "notes.txt")
        let picture = try write(Self.png, named: "cat.png")
        let first = TestIO(environment: environment)
        let status = await first.run(
            "ask", "--api-url", peer.url.absoluteString, "--attach", notes, "--attach", picture, "what", "is", "this")
        #expect(status == 0, "\(first.stderr)")
        let text = "what is this\n\nAttached file notes.txt:\n```\nbuy milk\n```"
        let expected: JSONValue = [
            "role": "user",
            "content": [
                ["type": "text", "text": .string(text)],
                [
                    "type": "image_url",
                    "image_url": ["url": .string("data:image/png;base64," + Base64.encode(Self.png))],
                ],
            ],
        ]
        #expect(try sentMessages(peer) == [[expected]])

        let store = try SQLiteChatHistory(path: ChatHistoryLocation.path(environment: environment))
        let id = try #require(try await store.recentConversations(limit: 1).first?.id)
        let saved = try await store.messages(inConversation: id)
        #expect(saved.first?.text == "what is this")
        #expect(saved.first?.attachments.map(\.name) == ["notes.txt", "cat.png"])
        #expect(saved.first?.attachments.last?.bytes == Self.png)

        let show = TestIO(environment: environment)
        #expect(await show.run("history", "show", id) == 0)
        #expect(show.stdout.contains("what is this\n[attached notes.txt, text/plain; charset=utf-8, 9 bytes]\n"))
        #expect(show.stdout.contains("[attached cat.png, image/png, 15 bytes]\n"))

        let second = TestIO(environment: environment)
        #expect(await second.run("ask", "--api-url", peer.url.absoluteString, "-c", "and", "now?") == 0)
        let again = try #require(try sentMessages(peer).last)
        #expect(again.count == 3)
        #expect(again.first == expected, "the continuation sends the attached files again")
        #expect(again.last == ["role": "user", "content": "and now?"])
    }

    @Test func aTextFileAloneKeepsTheContentAString() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        let code = try write(Array("let a = \"```\"\n".utf8), named: "a.swift")
        let test = TestIO(environment: environment)
        #expect(await test.run("ask", "--api-url", peer.url.absoluteString, "--attach", code, "review") == 0)
        let content = "review\n\nAttached file a.swift:\n````\nlet a = \"```\"\n````"
        #expect(try sentMessages(peer) == [[["role": "user", "content": .string(content)]]])
    }

    @Test func anUnreadableFileSendsAndSavesNothing() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        let missing = home + "/gone.txt"
        let test = TestIO(environment: environment)
        #expect(await test.run("ask", "--api-url", peer.url.absoluteString, "--attach", missing, "hi") == 66)
        #expect(test.stderr == "sybil ask: cannot read the file to attach '\(missing)': no such file\n")
        #expect(peer.server.received.isEmpty, "nothing was sent, not even a health check")
        #expect(!FileManager.default.fileExists(atPath: ChatHistoryLocation.path(environment: environment)))
    }

    @Test func aFileOverItsLimitOrNeitherTextNorImageIsRefusedNamingIt() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        let big = try write([UInt8](repeating: UInt8(ascii: "a"), count: AskInput.maximumBytes), named: "big.txt")
        let over = TestIO(environment: environment)
        #expect(await over.run("ask", "--api-url", peer.url.absoluteString, "--attach", big, "hi") == 65)
        #expect(
            over.stderr
                == "sybil ask: the file to attach '\(big)' is \(AskInput.maximumBytes) bytes, over the limit of "
                + "\(AskInput.maximumBytes) bytes for the question's text with its text files\n")
        let binary = try write([0xFF, 0xFE, 0x00, 0x01], named: "blob.bin")
        let refused = TestIO(environment: environment)
        #expect(await refused.run("ask", "--api-url", peer.url.absoluteString, "--attach", binary, "hi") == 65)
        #expect(refused.stderr.contains("'\(binary)' is neither UTF-8 text nor a PNG, JPEG, GIF, WebP or HEIC image"))
        var image = Self.png
        image += [UInt8](repeating: 0, count: ChatAttachment.maximumImageBytes)
        let huge = try write(image, named: "huge.png")
        let tooBig = TestIO(environment: environment)
        #expect(await tooBig.run("ask", "--api-url", peer.url.absoluteString, "--attach", huge, "hi") == 65)
        #expect(tooBig.stderr.contains("over the limit of \(ChatAttachment.maximumImageBytes) bytes for an image"))
        #expect(peer.server.received.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: ChatHistoryLocation.path(environment: environment)))
    }

    @Test func webAndAttachExcludeEachOther() async {
        let test = TestIO(environment: environment)
        #expect(await test.run("ask", "--web", "--attach", "x.txt", "hi") == 64)
        #expect(test.stderr.contains("--web and --attach exclude each other"))
    }
}
