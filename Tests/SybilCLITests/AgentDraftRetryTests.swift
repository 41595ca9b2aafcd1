import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilImaging
import SybilNet
import SybilServer
import SybilStore
import SybilWire
import Testing

@testable import SybilCLI

/// `sybil agent draft retry [N]` against the reference server over real sockets (seed 003:
/// failed work waits for an explicit retry): a file refused by a send is kept failed in the
/// draft across runs; once it is fixed, a retry uploads it with the same upload id and the next
/// send takes it; what cannot be retried is refused with a clear sentence.
@Suite("sybil agent draft retry", .timeLimit(.minutes(2)))
struct AgentDraftRetryTests {
    private static let token = "retry-token"

    private func server() throws -> ReferenceServer {
        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        return try ReferenceServer(options: options)
    }

    private func io(_ url: URL, data: URL) -> TestIO {
        TestIO(environment: [
            "SYBIL_API_URL": url.absoluteString, "SYBIL_TOKEN": Self.token, "XDG_DATA_HOME": data.path,
        ])
    }

    @Test func aRefusedFileIsRetriedOnceFixedAndTheNextSendTakesIt() async throws {
        let server = try server()
        defer { Task { await server.shutdown() } }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-retry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        let notes = data.appendingPathComponent("notes.txt")
        try Data("fine\n".utf8).write(to: notes)
        let picture = data.appendingPathComponent("picture.png")
        try Data("not a picture yet".utf8).write(to: picture)
        let first = io(server.baseURL, data: data)
        #expect(await first.run("agent", "send", "--attach", notes.path, "--attach", picture.path, "report") == 65)

        let nothing = io(server.baseURL, data: data)
        #expect(await nothing.run("agent", "draft", "retry", "1") == 65)
        #expect(nothing.stderr.contains("notes.txt is uploaded; nothing to retry"), "\(nothing.stderr)")
        let beyond = io(server.baseURL, data: data)
        #expect(await beyond.run("agent", "draft", "retry", "3") == 65)
        #expect(beyond.stderr.contains("there is no attachment 3; the draft has 2"))
        let still = io(server.baseURL, data: data)
        #expect(await still.run("agent", "draft", "retry") == 65, "the file is still broken")
        #expect(still.stderr.contains("picture.png is not a valid PNG image"), "\(still.stderr)")

        let png = try PNGCodec.encode(pixels: Array(repeating: 90, count: 12), width: 2, height: 2, alpha: false)
        try Data(png).write(to: picture)
        let retry = io(server.baseURL, data: data)
        #expect(await retry.run("agent", "draft", "retry", "2") == 0, "\(retry.stderr)")
        #expect(retry.stderr.contains("picture.png uploaded ("), "\(retry.stderr)")
        let show = io(server.baseURL, data: data)
        #expect(await show.run("agent", "draft", "show") == 0)
        #expect(show.stdout.contains("2. picture.png · image/png"), "\(show.stdout)")
        #expect(!show.stdout.contains("failed"), "\(show.stdout)")

        let send = io(server.baseURL, data: data)
        #expect(await send.run("agent", "send", "now with the picture") == 0, "\(send.stderr)")
        let api = AgentRoomHTTPClient(
            base: try AgentAPIBase(server.baseURL), http: DefaultHTTPClient.make(redirects: .deliver),
            tokens: TokenProvider(current: TokenLocation(store: InMemorySecretStore(["t": Self.token]), account: "t")),
            random: SystemRandomSource())
        let sent = try await api.messages(after: nil, before: nil, limit: 10).messages.filter { $0.role == .user }
        #expect(sent.map(\.text) == ["now with the picture"])
        #expect(sent.first?.attachments.map(\.fileName) == ["notes.txt", "picture.png"])
        let empty = io(server.baseURL, data: data)
        #expect(await empty.run("agent", "draft") == 0)
        #expect(empty.stdout == "The draft is empty.\n")
    }

    @Test func retryArgumentsAreCheckedBeforeAnythingRuns() throws {
        let environment = ["SYBIL_API_URL": "http://127.0.0.1:9", "SYBIL_TOKEN": Self.token]
        #expect(try AgentDraftCommand.parse(["retry"], environment: environment)?.number == nil)
        #expect(try AgentDraftCommand.parse(["retry", "8"], environment: environment)?.number == 8)
        for bad in [
            ["retry", "0"], ["retry", "9"], ["retry", "two"], ["retry", "1", "2"], ["show", "1"], ["again"],
        ] {
            #expect(throws: UsageError.self, "\(bad)") { try AgentDraftCommand.parse(bad, environment: environment) }
        }
    }
}
