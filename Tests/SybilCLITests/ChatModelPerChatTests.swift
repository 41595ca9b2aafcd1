import Foundation
import SybilClient
import SybilCore
import SybilServer
import SybilStore
import SybilTUI
import SybilTesting
import Testing

@testable import SybilCLI

/// A model per chat end to end over loopback sockets: `sybil ask -c` asks the model the
/// conversation was saved with unless `--model` is given, and the app's `/model` picks one of
/// the reference server's listed models for the open chat, saved with it.
@Suite("A model per chat, end to end", .timeLimit(.minutes(2)))
struct ChatModelPerChatTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-models-\(UUID().uuidString)")
        .path
    var environment: [String: String] { ["XDG_DATA_HOME": home, "HOME": "/nonexistent", "SYBIL_TOKEN": "t"] }

    func conversationId(in stderr: String) -> String? {
        let prefix = "sybil ask: conversation "
        return stderr.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    @Test func continuingAsksTheSavedModelUnlessAnotherIsGiven() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        let url = peer.url.absoluteString
        let first = TestIO(environment: environment)
        #expect(await first.run("ask", "--api-url", url, "--model", "m-two", "Eins") == 0)
        let id = try #require(conversationId(in: first.stderr))
        #expect(peer.chatRequests.last?.model == "m-two")
        let second = TestIO(environment: environment)
        #expect(await second.run("ask", "--api-url", url, "-c", "Zwei") == 0)
        #expect(peer.chatRequests.last?.model == "m-two", "the saved model, not the server's first or a default")
        #expect(!second.stderr.contains("asking"), "no model list was needed: \(second.stderr)")
        let third = TestIO(environment: environment)
        #expect(await third.run("ask", "--api-url", url, "--chat", id, "--model", "m-three", "Drei") == 0)
        #expect(peer.chatRequests.last?.model == "m-three")
        let fourth = TestIO(environment: environment)
        #expect(await fourth.run("ask", "--api-url", url, "-c", "Vier") == 0)
        #expect(peer.chatRequests.last?.model == "m-three", "--model on a continuation is kept with it")
        let store = try SQLiteChatHistory(path: ChatHistoryLocation.path(environment: environment))
        #expect(try await store.conversation(id: id)?.model == "m-three")
        #expect(try await store.messages(inConversation: id).map(\.model).suffix(2) == ["m-three", "m-three"])
    }

    @Test @MainActor func theAppPicksAListedModelForTheOpenChatAndSavesIt() async throws {
        var options = SybilServerOptions(token: "t")
        options.pace = .zero
        let server = try ReferenceServer(options: options)
        defer { Task { await server.shutdown() } }
        defer { try? FileManager.default.removeItem(atPath: home) }
        var environment = environment
        environment["SYBIL_API_URL"] = server.baseURL.absoluteString
        let test = TestIO(environment: environment)
        let request = try #require(try TerminalAppCommand.parse([], environment: environment))
        let connection = try #require(request.common.target.connect(command: "test", io: test.io))
        let store = InMemoryChatHistory()
        let (services, _) = await TerminalAppCommand.services(
            request, store: store, connection: connection, io: test.io, clock: AnyClock(ContinuousClock()))
        let controller = TerminalAppController(
            services: services, theme: .monochrome, size: TerminalSize(columns: 120, rows: 20))
        await controller.start()
        func type(_ text: String) {
            for character in text { controller.handle(.key(KeyEvent(.character(character))), now: .zero) }
            controller.handle(.key(KeyEvent(.enter)), now: .zero)
        }
        func notice(_ check: @escaping (String) -> Bool) async -> Bool {
            await ConditionWait.until { controller.app.notice.map(check) ?? false }
        }
        // The server's first listed model is the default; its list comes over GET /v1/models.
        #expect(controller.chat?.model == "sybil-scripted")
        type("/model")
        #expect(await notice { $0.hasPrefix("Models:") })
        #expect(controller.app.notice?.hasPrefix("Models: [sybil-scripted], chat-latest") == true)
        type("/model gpt-imaginary")
        #expect(await notice { $0.hasPrefix("The server does not list") })
        #expect(controller.app.notice?.contains("sybil-scripted, chat-latest") == true)
        type("/model chat-latest")
        #expect(await notice { $0 == "This chat now asks for chat-latest." })
        controller.sync()
        #expect(controller.app.header?.hasSuffix("· chat-latest") == true)
        type("hello")
        #expect(await ConditionWait.until { controller.chat?.messages.last?.state == .complete })
        let id = try #require(controller.chat?.conversationId)
        #expect(try await store.conversation(id: id)?.model == "chat-latest")
        #expect(try await store.messages(inConversation: id).map(\.model) == ["chat-latest", "chat-latest"])
        // F6: the next listed model, saved with the chat.
        controller.handle(.key(KeyEvent(.function(6))), now: .zero)
        #expect(await notice { $0 == "This chat now asks for sybil-scripted." })
        #expect(try await store.conversation(id: id)?.model == "sybil-scripted")
        await controller.close()
        await connection.close()
    }
}
