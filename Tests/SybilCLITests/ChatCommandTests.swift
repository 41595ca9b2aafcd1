import Foundation
import SybilStore
import Testing

@testable import SybilCLI
@testable import SybilServer

/// `sybil ask` keeping and continuing conversations, and `sybil quick`, in-process against a
/// server on loopback with a temporary XDG_DATA_HOME.
@Suite("sybil ask history and sybil quick", .timeLimit(.minutes(2)))
struct ChatCommandTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-chats-\(UUID().uuidString)")
        .path
    var environment: [String: String] { ["XDG_DATA_HOME": home, "HOME": "/nonexistent", "SYBIL_TOKEN": "t"] }
    var historyPath: String { ChatHistoryLocation.path(environment: environment) }

    func conversationId(in stderr: String, command: String = "sybil ask: conversation ") -> String? {
        stderr.split(separator: "\n").first { $0.hasPrefix(command) }.map { String($0.dropFirst(command.count)) }
    }

    @Test func askKeepsTheExchangeAndContinueSendsItAlong() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        let first = TestIO(environment: environment)
        #expect(await first.run("ask", "--api-url", peer.url.absoluteString, "Erste", "Frage") == 0)
        #expect(first.stdout == "Antwort auf 1 Nachrichten\n")
        let id = try #require(conversationId(in: first.stderr))
        let second = TestIO(environment: environment)
        #expect(await second.run("ask", "--api-url", peer.url.absoluteString, "-c", "Zweite") == 0)
        #expect(second.stdout == "Antwort auf 3 Nachrichten\n", "the first exchange went along")
        #expect(conversationId(in: second.stderr) == id)
        let sent = peer.chatRequests.last?.messages.map { "\($0.role): \($0.content)" }
        #expect(sent == ["user: Erste Frage", "assistant: Antwort auf 1 Nachrichten", "user: Zweite"])
        let third = TestIO(environment: environment)
        #expect(await third.run("ask", "--api-url", peer.url.absoluteString, "--chat", id, "Dritte") == 0)
        #expect(third.stdout == "Antwort auf 5 Nachrichten\n")
        let store = try SQLiteChatHistory(path: historyPath)
        let messages = try await store.messages(inConversation: id)
        #expect(messages.count == 6)
        #expect(messages.allSatisfy { $0.state == .complete && $0.model == "sybil-scripted" })
        #expect(try await store.conversation(id: id)?.title == "Erste Frage")
        #expect(try await store.recentConversations(limit: 10).count == 1)
    }

    @Test func askWithTheEmbeddedServerSavesAFailedReplyAsFailed() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let test = TestIO(environment: environment)
        #expect(await test.run("ask", "break [[error]]") == 76)
        #expect(test.stderr.contains("The reply stopped with an error"))
        let id = try #require(conversationId(in: test.stderr))
        let reply = try await SQLiteChatHistory(path: historyPath).messages(inConversation: id).last
        guard case .failed(let reason)? = reply?.state else {
            Issue.record("the reply was saved as \(String(describing: reply?.state))")
            return
        }
        #expect(reason.hasPrefix("The reply stopped with an error"))
    }

    @Test func onATerminalTheReplyIsRenderedMarkdownElsewhereItIsTheTextAsItArrived() async throws {
        let piped = TestIO(environment: environment)
        #expect(await piped.run("ask", "--no-save", "How", "do", "**cold** starts", "work?") == 0)
        let raw = try #require(piped.stdout.split(separator: "\n").first.map(String.init))
        #expect(raw.count > 30, "the scripted reply is one long line")
        var plain = environment
        plain["NO_COLOR"] = "1"
        let terminal = TestIO(environment: plain, terminal: (columns: 30, rows: 20))
        #expect(await terminal.run("ask", "--no-save", "How", "do", "**cold** starts", "work?") == 0)
        // The growing paragraph is redrawn in place as it streams: what counts is the screen.
        let screen = VirtualTerminal.screen(terminal.stdout, columns: 30)
        #expect(screen.unknown.isEmpty && screen.overshoot == 0)
        let lines = screen.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count > 2 && lines.dropLast().allSatisfy { $0.count <= 30 && !$0.isEmpty })
        #expect(lines.last == "", "the reply ends with a line break")
        let words = { (text: String) in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) }
        #expect(raw.contains("**cold**"), "the scripted agent quotes the question's Markdown")
        #expect(!terminal.stdout.contains("**"), "strong text is drawn, not its asterisks")
        let unmarked = raw.replacingOccurrences(of: "**cold**", with: "cold")
        #expect(words(screen.text) == words(unmarked), "wrapped to the terminal, words unchanged")
        let forcedRaw = TestIO(environment: plain, terminal: (columns: 30, rows: 20))
        #expect(await forcedRaw.run("ask", "--no-save", "--raw", "How", "do", "**cold** starts", "work?") == 0)
        #expect(forcedRaw.stdout == piped.stdout)
    }

    @Test func ctrlCStopsTheReplyAndSavesWhatArrivedAsStopped() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let test = TestIO(environment: environment)
        // The embedded server paces its tokens, so the reply is still arriving when asked to stop.
        async let status = test.run("ask", "Tell me about cold starts")
        await test.waitForOutput(containing: " ")
        test.terminate()
        #expect(await status == 130)
        #expect(test.stderr.contains("the reply was stopped; what arrived is saved"))
        let id = try #require(conversationId(in: test.stderr))
        let messages = try await SQLiteChatHistory(path: historyPath).messages(inConversation: id)
        #expect(messages.map(\.role) == [.user, .assistant])
        let reply = try #require(messages.last)
        #expect(reply.state == .stopped)
        #expect(!reply.text.isEmpty && test.stdout.hasPrefix(reply.text), "what was shown is what was kept")
    }

    @Test func noSaveLeavesNoFile() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let test = TestIO(environment: environment)
        #expect(await test.run("ask", "--no-save", "Hallo") == 0)
        #expect(test.stdout == ScriptedAgent(seed: 1).reply(to: "Hallo").text + "\n")
        #expect(conversationId(in: test.stderr) == nil)
        #expect(!FileManager.default.fileExists(atPath: historyPath))
        #expect(!FileManager.default.fileExists(atPath: home))
    }

    @Test func continuingWhatIsNotSavedExitsWith66() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        let latest = TestIO(environment: environment)
        #expect(await latest.run("ask", "--api-url", peer.url.absoluteString, "-c", "Hallo") == 66)
        // Before it: the peer's model list could not be read, which the command says first.
        #expect(
            latest.stderr.hasSuffix("sybil ask: there is no saved conversation to continue; ask without --continue\n"))
        let unknown = TestIO(environment: environment)
        #expect(await unknown.run("ask", "--api-url", peer.url.absoluteString, "--chat", "nope", "Hallo") == 66)
        #expect(
            unknown.stderr.hasSuffix(
                "sybil ask: no saved conversation 'nope'; `sybil history list` shows the saved ones\n"))
        #expect(peer.chatRequests.isEmpty, "nothing was sent")
    }

    @Test(
        "usage errors name the problem",
        arguments: [
            (["ask", "--no-save", "-c", "q"], "sybil ask: --no-save and --continue exclude each other"),
            (["ask", "--chat", "x", "--no-save", "q"], "sybil ask: --no-save and --chat exclude each other"),
            (["ask", "-c", "--chat", "x", "q"], "sybil ask: --continue and --chat exclude each other"),
            (["quick"], "sybil quick: needs a question"),
            (["quick", "--remember-model", "q"], "sybil quick: --remember-model needs --model NAME"),
            (["quick", "--model", " ", "q"], "sybil quick: --model needs a name of 1 to 200 bytes"),
            (["quick", "--model", String(repeating: "m", count: 201), "q"], "sybil quick: --model needs a name"),
            (["quick", "--bogus", "q"], "sybil quick: unknown option '--bogus'"),
        ])
    func usageErrors(arguments: [String], message: String) async {
        let test = TestIO(environment: environment)
        #expect(await test.run(arguments) == 64)
        #expect(test.stderr.hasPrefix(message), "\(test.stderr)")
    }

    @Test func quickAsksChatLatestUntilAnotherModelIsKept() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        let url = peer.url.absoluteString
        #expect(await TestIO(environment: environment).run("quick", "--api-url", url, "Eins") == 0)
        #expect(await TestIO(environment: environment).run("quick", "--api-url", url, "--model", "m2", "Zwei") == 0)
        #expect(await TestIO(environment: environment).run("quick", "--api-url", url, "Drei") == 0)
        let remembered = TestIO(environment: environment)
        #expect(await remembered.run("quick", "--api-url", url, "--model", "m3", "--remember-model", "Vier") == 0)
        let last = TestIO(environment: environment)
        #expect(await last.run("quick", "--api-url", url, "Fünf") == 0)
        #expect(last.stdout == "Antwort auf 1 Nachrichten\n")
        #expect(peer.chatRequests.map(\.model) == ["chat-latest", "m2", "chat-latest", "m3", "m3"])
        #expect(!FileManager.default.fileExists(atPath: historyPath), "nothing is kept without --open-in-chat")
    }

    @Test func quickOpenInChatSavesTheExchangeAsAChat() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let test = TestIO(environment: environment)
        #expect(await test.run("quick", "--model", "sybil-scripted", "--open-in-chat", "Was", "ist", "das?") == 0)
        let answer = ScriptedAgent(seed: 1).reply(to: "Was ist das?").text
        #expect(test.stdout == answer + "\n")
        let id = try #require(conversationId(in: test.stderr, command: "sybil quick: saved as conversation "))
        let store = try SQLiteChatHistory(path: historyPath)
        #expect(try await store.conversation(id: id)?.title == "Was ist das?")
        let messages = try await store.messages(inConversation: id)
        #expect(messages.map(\.text) == ["Was ist das?", answer])
        #expect(messages.map(\.model) == ["sybil-scripted", "sybil-scripted"])
    }
}
