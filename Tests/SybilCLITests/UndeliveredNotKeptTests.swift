import Foundation
import SybilClient
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilCLI

/// SPEC §2 "nothing lost": a list of kept texts whose store cannot be opened (a data folder
/// that cannot be made) lives in memory, and says so — on the app's status line through
/// `storeProblem`, and on standard error for a one-shot command — so nobody believes the texts
/// outlast the run.
@Suite("Kept-text lists whose store cannot be opened say so", .timeLimit(.minutes(1)))
@MainActor
struct UndeliveredNotKeptTests {
    /// A data folder whose place is taken by a file: no folder can be made under it, even as
    /// root.
    private func blockedDataFolder() throws -> URL {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-cli-not-kept-\(UUID().uuidString)")
        try Data("not a folder".utf8).write(to: data)
        return data
    }

    @Test func aWorkspacesListWhoseFolderCannotBeMadeSaysItIsNotKept() throws {
        let data = try blockedDataFolder()
        defer { try? FileManager.default.removeItem(at: data) }
        let test = TestIO(environment: ["XDG_DATA_HOME": data.path])
        let common = try ClientCommand.Common(
            environment: test.io.environment, options: ClientCommand.Options(), command: "t")

        // The app's list: no line on standard error, the status line names `storeProblem`.
        let list = WorkspaceSessionParts.undelivered(common: common, environment: test.io.environment)
        #expect(list.persistence == nil)
        let problem = try #require(list.storeProblem, "a list in memory only is not passed off as kept")
        #expect(problem.contains("cannot be saved") && problem.contains(data.path), "\(problem)")
        #expect(test.stderr.isEmpty)
        let text = WorkspaceUndeliveredMessages.Message(
            id: "op-1", chat: WorkspaceChatKey(desktopId: "d", projectId: "p", sessionId: "s"),
            text: "Nur im Speicher.", cause: .rejected, reason: "r")
        #expect(list.keep(text), "kept while the run lasts")
        #expect(list.messages == [text])

        // `sybil workspaces send`'s list: one line on standard error says the texts do not last.
        let sent = WorkspaceSessionParts.undelivered(
            common: common, environment: test.io.environment, command: "sybil workspaces send", io: test.io)
        #expect(sent.storeProblem != nil)
        let lines = test.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(test.stderr)")
        #expect(test.stderr.hasPrefix("sybil workspaces send: The messages kept undelivered cannot be saved"))
        #expect(test.stderr.contains("will not be kept past this run"), "\(test.stderr)")
    }

    @Test func anAgentRoomListWhoseFolderCannotBeMadeSaysItIsNotKept() throws {
        let data = try blockedDataFolder()
        defer { try? FileManager.default.removeItem(at: data) }
        let scope = try AgentOutboxScope(baseURL: URL(string: "http://127.0.0.1:8080/api")!)
        let list = AgentCommand.undelivered(in: data.path + "/sybil/client/agent", scope: scope)
        #expect(list.persistence == nil)
        let problem = try #require(list.storeProblem, "a list in memory only is not passed off as kept")
        #expect(problem.contains("cannot be saved") && problem.contains(data.path), "\(problem)")
        let line = AgentCommand.notKeptLine(problem, command: "sybil agent send")
        #expect(line.hasPrefix("sybil agent send: The messages kept undelivered cannot be saved"), "\(line)")
        #expect(line.hasSuffix("will not be kept past this run (make the data folder writable and run again)\n"))
    }

    @Test func anAgentRoomListInAFolderThatCanBeMadeIsKept() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-cli-kept-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let scope = try AgentOutboxScope(baseURL: URL(string: "http://127.0.0.1:8080/api")!)
        let list = AgentCommand.undelivered(in: data.path, scope: scope)
        #expect(list.persistence != nil)
        #expect(list.storeProblem == nil)
    }
}
