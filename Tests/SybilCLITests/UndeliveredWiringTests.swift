import Foundation
import SybilClient
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilCLI

/// SPEC §2: the terminal app keeps the texts it could not deliver under the data directory,
/// so the next launch shows them again; `--in-memory` writes nothing.
@Suite("Terminal app wiring of the texts kept undelivered", .timeLimit(.minutes(1)))
@MainActor
struct UndeliveredWiringTests {
    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-kept-\(UUID().uuidString)")
    }

    private func common(inMemory: Bool, environment: [String: String]) throws -> ClientCommand.Common {
        var options = ClientCommand.Options()
        options.inMemory = inMemory
        return try ClientCommand.Common(environment: environment, options: options, command: "t")
    }

    @Test func theWorkspacesAndChatsKeptTextsComeBackAtTheNextLaunch() throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let test = TestIO(environment: ["XDG_DATA_HOME": data.path])
        let environment = test.io.environment
        let chat = WorkspaceChatKey(desktopId: "d", projectId: "p", sessionId: "s")
        let session = WorkspaceUndeliveredMessages.Message(
            id: "op-1", chat: chat, text: "Für den Desktop.", cause: .rejected, reason: "Abgelehnt.")
        let common = try common(inMemory: false, environment: environment)
        #expect(WorkspaceSessionParts.undelivered(common: common, environment: environment).keep(session))
        #expect(WorkspaceSessionParts.undelivered(common: common, environment: environment).messages == [session])

        let request = TerminalAppCommand.Request(common: common, model: nil, seed: 0)
        let text = ChatUndeliveredMessages.Message(
            id: "unsent-1", chat: .newChat, text: "Für den Chat.", cause: .notSent, reason: "r")
        #expect(TerminalAppCommand.chatUndelivered(request, io: test.io).keep(text))
        #expect(TerminalAppCommand.chatUndelivered(request, io: test.io).messages == [text])
        #expect(FileManager.default.fileExists(atPath: data.path + "/sybil/client/workspace-undelivered"))
        #expect(FileManager.default.fileExists(atPath: data.path + "/sybil/client/chat/chat-undelivered"))
    }

    @Test func aChatsListWhoseFolderCannotBeMadeSaysItIsNotKept() throws {
        // The data folder's place is taken by a file: no folder can be made under it.
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        try Data("not a folder".utf8).write(to: data)
        let test = TestIO(environment: ["XDG_DATA_HOME": data.path])
        let request = TerminalAppCommand.Request(
            common: try common(inMemory: false, environment: test.io.environment), model: nil, seed: 0)
        let list = TerminalAppCommand.chatUndelivered(request, io: test.io)
        #expect(list.persistence == nil)
        let problem = try #require(list.storeProblem, "a list in memory only is not passed off as kept")
        #expect(problem.contains("cannot be saved") && problem.contains(data.path), "\(problem)")
        let text = ChatUndeliveredMessages.Message(
            id: "unsent-1", chat: .newChat, text: "Nur im Speicher.", cause: .notSent, reason: "r")
        #expect(list.keep(text), "kept while the app runs")
        #expect(list.messages == [text])
    }

    @Test func inMemoryKeepsNothingOnDisk() throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let test = TestIO(environment: ["XDG_DATA_HOME": data.path])
        let common = try common(inMemory: true, environment: test.io.environment)
        #expect(WorkspaceSessionParts.undelivered(common: common, environment: test.io.environment).persistence == nil)
        let request = TerminalAppCommand.Request(common: common, model: nil, seed: 0)
        #expect(TerminalAppCommand.chatUndelivered(request, io: test.io).persistence == nil)
        #expect(TerminalAppCommand.chatUndelivered(request, io: test.io).storeProblem == nil, "in memory on purpose")
        #expect(!FileManager.default.fileExists(atPath: data.path))
    }
}
