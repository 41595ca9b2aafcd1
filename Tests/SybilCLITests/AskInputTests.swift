import Foundation
import SybilStore
import Testing

@testable import SybilCLI

/// `sybil ask` reading standard input when it is not a terminal, the 1 MiB limit checked
/// before anything is sent, and the system prompt kept with the conversation.
@Suite("sybil ask: standard input and the system prompt", .timeLimit(.minutes(2)))
struct AskInputTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-ask-\(UUID().uuidString)")
        .path
    var environment: [String: String] { ["XDG_DATA_HOME": home, "HOME": "/nonexistent", "SYBIL_TOKEN": "t"] }

    func sent(_ peer: OpenAIPeer) -> [String]? {
        peer.chatRequests.last?.messages.map { "\($0.role): \($0.content)" }
    }

    @Test func pipedTextFollowsTheQuestionAfterABlankLine() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        let test = TestIO(stdin: Array("# Notes\nbuy milk\n".utf8), readSize: 5, environment: environment)
        #expect(await test.run("ask", "--api-url", peer.url.absoluteString, "summarise", "this") == 0)
        #expect(sent(peer) == ["user: summarise this\n\n# Notes\nbuy milk\n"])
    }

    @Test(arguments: [[], ["-"]])
    func withNoQuestionStandardInputIsTheQuestion(words: [String]) async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        let test = TestIO(stdin: Array("Why is the sky blue?\n".utf8), environment: environment)
        #expect(await test.run(["ask", "--api-url", peer.url.absoluteString] + words) == 0, "\(test.stderr)")
        #expect(sent(peer) == ["user: Why is the sky blue?\n"])
    }

    @Test func overTheLimitIsRefusedBeforeAnythingIsSent() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        let piped = [UInt8](repeating: UInt8(ascii: "a"), count: AskInput.maximumBytes - 3)
        let test = TestIO(stdin: piped, environment: environment)
        // "ab", a blank line and the piped text: one byte over.
        #expect(await test.run("ask", "--api-url", peer.url.absoluteString, "ab") == 65)
        #expect(
            test.stderr
                == "sybil ask: the question is 1048577 bytes, over the limit of 1048576 bytes (1 MiB); "
                + "send a shorter text\n")
        #expect(peer.server.received.isEmpty, "nothing was sent, not even a health check")
        #expect(!FileManager.default.fileExists(atPath: ChatHistoryLocation.path(environment: environment)))
    }

    @Test func theLimitCountsQuestionBlankLineAndPipedText() {
        let limit = AskInput.maximumBytes
        let exactly = [UInt8](repeating: UInt8(ascii: "a"), count: limit - 4)
        #expect(
            AskInput.question(words: ["ab"], piped: exactly)
                == .success("ab\n\n" + String(repeating: "a", count: limit - 4)))
        #expect(AskInput.question(words: ["abc"], piped: exactly) == .failure(.tooLarge(bytes: limit + 1)))
        let alone = [UInt8](repeating: UInt8(ascii: "a"), count: limit)
        #expect(AskInput.question(words: [], piped: alone) == .success(String(repeating: "a", count: limit)))
        #expect(AskInput.question(words: ["-"], piped: alone + [10]) == .failure(.tooLarge(bytes: limit + 1)))
        #expect(AskInput.question(words: [], piped: [0xFF]) == .failure(.notText))
        #expect(AskInput.question(words: [], piped: Array(" \n".utf8)) == .success(nil))
        #expect(AskInput.question(words: ["q"], piped: []) == .success("q"))
    }

    @Test func readingStopsKeepingPastTheLimitButCountsEverything() {
        let test = TestIO(stdin: [UInt8](repeating: 1, count: AskInput.maximumBytes + 10), readSize: 4_096)
        #expect(
            AskInput.read(test.io, reserved: 0).map(\.total) == .failure(.tooLarge(bytes: AskInput.maximumBytes + 10)))
        let fits = TestIO(stdin: [UInt8](repeating: 1, count: AskInput.maximumBytes - 5))
        #expect((try? AskInput.read(fits.io, reserved: 5).get().total) == AskInput.maximumBytes - 5)
    }

    @Test(arguments: [[], ["-"]])
    func onATerminalWithNoQuestionItIsTheUsageErrorAsBefore(words: [String]) async {
        let test = TestIO(stdin: Array("never read".utf8), environment: environment)
        var io = test.io
        io.inputIsTerminal = true
        #expect(await SybilCommandLine.run(["ask"] + words, io: io) == 64)
        #expect(test.stderr.hasPrefix("sybil ask: needs a question"))
        let empty = TestIO(environment: environment)
        #expect(await empty.run(["ask"] + words) == 64, "an empty pipe is no question either")
        #expect(empty.stderr.hasPrefix("sybil ask: needs a question"))
    }

    @Test func theSystemPromptIsSavedShownAndSentAgainOnContinuation() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        let first = TestIO(environment: environment)
        #expect(await first.run("ask", "--api-url", peer.url.absoluteString, "--system", "Be brief.", "Erste") == 0)
        #expect(sent(peer) == ["system: Be brief.", "user: Erste"])
        let second = TestIO(environment: environment)
        #expect(await second.run("ask", "--api-url", peer.url.absoluteString, "-c", "Zweite") == 0)
        #expect(
            sent(peer) == ["system: Be brief.", "user: Erste", "assistant: Antwort auf 2 Nachrichten", "user: Zweite"])
        let store = try SQLiteChatHistory(path: ChatHistoryLocation.path(environment: environment))
        let id = try #require(try await store.recentConversations(limit: 1).first?.id)
        #expect(try await store.conversation(id: id)?.systemPrompt == "Be brief.")
        let show = TestIO(environment: environment)
        #expect(await show.run("history", "show", id) == 0)
        #expect(show.stdout.contains("\nSystem prompt:\nBe brief.\n"))
    }

    @Test func aContinuedChatKeepsItsSavedSystemPromptOverTheProfiles() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        try FileManager.default.createDirectory(atPath: home + "/config/sybil", withIntermediateDirectories: true)
        let config = "[profiles.p]\nbase_url = \"\(peer.url.absoluteString)\"\nsystem = \"Profile prompt.\"\n"
        try Data(config.utf8).write(to: URL(fileURLWithPath: home + "/config/sybil/config.toml"))
        var environment = environment
        environment["XDG_CONFIG_HOME"] = home + "/config"
        let first = TestIO(environment: environment)
        #expect(await first.run("ask", "--profile", "p", "--system", "Be brief.", "Erste") == 0)
        #expect(sent(peer)?.first == "system: Be brief.")
        let second = TestIO(environment: environment)
        #expect(await second.run("ask", "--profile", "p", "-c", "Zweite") == 0)
        #expect(sent(peer)?.first == "system: Be brief.", "the prompt saved with the chat, not the profile's")
        let fresh = TestIO(environment: environment)
        #expect(await fresh.run("ask", "--profile", "p", "Neu") == 0)
        #expect(sent(peer) == ["system: Profile prompt.", "user: Neu"], "a new chat takes the profile's")
    }
}
