import Foundation
import SybilStore
import SybilTesting
import Testing

@testable import SybilCLI

/// A request that never left the machine is not saved to history (issue 28): over real
/// loopback sockets, a refused connection leaves the history as it was and says how to send
/// the question again; a server that answered (with a 500) gets the failed attempt saved.
@Suite("sybil ask: a question that never reached the server is not saved", .timeLimit(.minutes(2)))
struct AskUnsentTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-unsent-\(UUID().uuidString)")
        .path
    var environment: [String: String] { ["XDG_DATA_HOME": home, "HOME": "/nonexistent"] }

    func history() async throws -> [(ChatConversationRecord, [ChatMessageRecord])] {
        let path = ChatHistoryLocation.path(environment: environment)
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let store = try SQLiteChatHistory(path: path)
        var saved: [(ChatConversationRecord, [ChatMessageRecord])] = []
        for conversation in try await store.recentConversations(limit: 100) {
            saved.append((conversation, try await store.messages(inConversation: conversation.id)))
        }
        return saved
    }

    @Test func aRefusedConnectionSavesNothingAndSaysHowToSendAgain() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let refusing = try RefusingPort()
        let test = TestIO(environment: environment)
        let status = await test.run("ask", "--api-url", refusing.url.absoluteString, "--model", "m", "Is it on?")
        withExtendedLifetime(refusing) {}
        #expect(status == 69, Comment(rawValue: test.stderr))
        #expect(test.stderr.contains("Connection refused"), "the reason is kept")
        #expect(
            test.stderr.hasSuffix(
                "sybil ask: the question never reached the server, so it was not saved;"
                    + " run the same command again to send it\n"))
        #expect(!test.stderr.contains("conversation "), "no conversation id is named")
        #expect(try await history().isEmpty)
        let listed = TestIO(environment: environment)
        #expect(await listed.run("history", "list") == 0)
        #expect(listed.stdout == "")
    }

    /// A TCP connect that never completed (a listener whose accept queue is full never answers
    /// the SYN) sent nothing: the connect timeout is not a request that may have been sent.
    @Test func aConnectTimeoutSavesNothingAndSaysHowToSendAgain() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let full = try FullBacklogPort()
        var environment = environment
        environment["SYBIL_CONNECT_TIMEOUT"] = "0.05"
        let test = TestIO(environment: environment)
        let status = await test.run("ask", "--api-url", full.url.absoluteString, "--model", "m", "Is it on?")
        withExtendedLifetime(full) {}
        #expect(status == 69, Comment(rawValue: test.stderr))
        #expect(test.stderr.contains("no connection within 0.05 seconds"), "the reason is kept")
        #expect(
            test.stderr.hasSuffix(
                "sybil ask: the question never reached the server, so it was not saved;"
                    + " run the same command again to send it\n"), Comment(rawValue: test.stderr))
        #expect(try await history().isEmpty)
    }

    @Test func aConnectTimeoutThatIsNotANumberIsRefusedBeforeAnythingIsSent() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let refusing = try RefusingPort()
        var environment = environment
        environment["SYBIL_CONNECT_TIMEOUT"] = "5s"
        let test = TestIO(environment: environment)
        let status = await test.run("ask", "--api-url", refusing.url.absoluteString, "--model", "m", "Is it on?")
        withExtendedLifetime(refusing) {}
        #expect(status == 69)
        #expect(
            test.stderr == "sybil ask: SYBIL_CONNECT_TIMEOUT must be a number of seconds above 0, not \"5s\"\n")
        #expect(try await history().isEmpty)
    }

    @Test func aPipedQuestionIsPrintedBackSoItIsNotLost() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let refusing = try RefusingPort()
        let test = TestIO(stdin: Array("line one\n\tline two\n".utf8), environment: environment)
        let status = await test.run("ask", "--api-url", refusing.url.absoluteString, "--model", "m", "summarise")
        withExtendedLifetime(refusing) {}
        #expect(status == 69)
        #expect(
            test.stderr.hasSuffix(
                "sybil ask: the question never reached the server, so it was not saved; it follows, to pipe in again:\n"
                    + "summarise\n\nline one\n\tline two\n"))
        #expect(try await history().isEmpty)
    }

    @Test func anUnansweredPipedWebSearchIsPrintedBackSoItIsNotLost() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let refusing = try RefusingPort()
        let test = TestIO(stdin: Array("temples near Kyoto\n".utf8), environment: environment)
        let status = await test.run("ask", "--web", "--api-url", refusing.url.absoluteString)
        withExtendedLifetime(refusing) {}
        #expect(status == 69)
        #expect(
            test.stderr.hasSuffix(
                "sybil ask: the web search was not answered or saved; the query follows, to pipe in again:\n"
                    + "temples near Kyoto\n"), "\(test.stderr)")
    }

    @Test func aContinuedChatKeepsOnlyWhatReachedTheServer() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        let first = TestIO(environment: environment)
        #expect(await first.run("ask", "--api-url", peer.url.absoluteString, "--model", "m", "first") == 0)
        let before = try await history()
        try #require(before.count == 1 && before[0].1.count == 2)
        let refusing = try RefusingPort()
        let again = TestIO(environment: environment)
        let status = await again.run("ask", "--api-url", refusing.url.absoluteString, "--model", "m", "-c", "second")
        withExtendedLifetime(refusing) {}
        #expect(status == 69)
        let after = try await history()
        #expect(after.count == 1)
        #expect(after.first?.1.map(\.id) == before[0].1.map(\.id), "the unsent question and its reply are gone")
        #expect(after.first?.0.updatedAt == before[0].0.updatedAt, "the chat's time is as it was")
        let search = TestIO(environment: environment)
        #expect(await search.run("search", "second") == 0)
        #expect(search.stdout == "", "nor can search find it")
    }

    @Test func aServerThatAnswered500GetsTheFailedAttemptSaved() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let body = #"{"error":{"message":"upstream down","type":"server_error"}}"#
        let server = try LoopbackHTTPServer { _, connection in
            connection.write(
                "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        }
        let test = TestIO(environment: environment)
        let status = await test.run("ask", "--api-url", server.url.absoluteString, "--model", "m", "Is it on?")
        #expect(status == 69, Comment(rawValue: test.stderr))
        #expect(!test.stderr.contains("never reached the server"))
        #expect(server.received.contains { $0.requestLine.hasPrefix("POST /v1/chat/completions") })
        let saved = try await history()
        #expect(saved.count == 1)
        let messages = saved.first?.1 ?? []
        #expect(messages.map(\.text).first == "Is it on?")
        guard case .failed(let reason)? = messages.last?.state else {
            Issue.record("the reply is saved as failed, got \(String(describing: messages.last?.state))")
            return
        }
        #expect(reason.contains("upstream down"), "the server's own message is kept")
        #expect(test.stderr.contains("sybil ask: conversation \(saved[0].0.id)\n"))
    }
}
