import Foundation
import SybilClient
import SybilCore
import SybilServer
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilCLI

/// SPEC §2 "nothing lost" for `sybil workspaces send`: the process dies (SIGKILL) after any
/// write of a run in which the desktop rejects for good a message an earlier run left in the
/// outbox. Its text is then on disk at every moment: still in the outbox, or kept with the
/// session's undelivered messages (which the terminal app shows), never in neither; a run
/// that is not killed also reports it whole on standard error.
///
/// The run is the real command over the real files under the data directory: the outbox's
/// snapshot and journal (``WorkspaceOutboxJournal``) and the kept texts' ``FileKeyValueStore``.
/// After each step of each of their writes the data directory is copied as it is then: what
/// a SIGKILL at that moment leaves (the page cache outlives the process), which a relaunch
/// then reads.
@MainActor
@Suite("sybil workspaces send: a rejected earlier message across a crash", .timeLimit(.minutes(3)))
struct WorkspacesSendCrashTests {
    /// The data directory as a kill after each write step would leave it: copies, in order.
    final class DiskStates: Sendable {
        let directory: String
        let copies: String
        private let taken = Locked(0)

        init(directory: String, copies: String) {
            self.directory = directory
            self.copies = copies
        }

        /// Copies `directory` as it is now: what a kill now leaves (a write of the other store
        /// running meanwhile is one a kill could cut short too).
        func capture() {
            taken.withLock { count in
                let target = copies + "/\(count)"
                do {
                    try FileManager.default.copyItem(atPath: directory, toPath: target)
                } catch {
                    Issue.record("cannot copy the data directory: \(error)")
                }
                count += 1
            }
        }

        /// The copies taken, oldest first.
        var states: [String] { (0..<taken.withLock { $0 }).map { copies + "/\($0)" } }
    }

    /// The kept texts' file store, the data directory copied after each of its writes (each
    /// one atomic file replacement: before it, the copy before).
    struct CopyingStore: KeyValueStore {
        let file: FileKeyValueStore
        let states: DiskStates

        func data(forKey key: String) throws -> [UInt8]? { try file.data(forKey: key) }

        func set(_ data: [UInt8], forKey key: String) throws {
            try file.set(data, forKey: key)
            states.capture()
        }

        func removeValue(forKey key: String) throws {
            try file.removeValue(forKey: key)
            states.capture()
        }
    }

    private static let token = WorkspacesSendFixture.token
    private static let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-43")
    private static let text = "Steer: keep the old\nlogin form until the migration ran."

    private static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-\(UUID().uuidString)")
    }

    /// A data directory (`XDG_DATA_HOME`) in whose outbox an earlier run left a steer into a
    /// run that has ended since: the desktop rejects it for good when it is sent again.
    private static func dataWithAnEarlierSteer() async throws -> URL {
        let data = temporaryDirectory()
        let outbox = try WorkspaceOutbox(store: FileKeyValueStore(directory: data.path + "/sybil/client"))
        try await outbox.enqueue(
            WorkspaceOutboxEntry(
                chat: chat, operationId: "op-earlier-1", status: .awaitingRetry,
                mutation: .init(mutationId: "mut-earlier-1", text: text), mode: .steer(activeRunId: "run-ended"),
                createdAt: 1_764_400_000_000))
        return data
    }

    private static func server() throws -> ReferenceServer { try WorkspacesSendFixture.server() }

    private static func io(_ server: ReferenceServer, data: URL) -> TestIO {
        WorkspacesSendFixture.io(server, data: data)
    }

    /// Where the text is as the next launch reads the client folder `directory`: in the
    /// outbox, in the kept list.
    private static func afterRelaunch(_ directory: String) async throws -> (inOutbox: [String], kept: [String]) {
        let outbox = try WorkspaceOutbox(store: FileKeyValueStore(directory: directory))
        let kept = WorkspaceUndeliveredMessages(
            persistence: .workspaces(in: try FileKeyValueStore(directory: directory)))
        return (
            await outbox.pendingEntries(in: chat).map(\.mutation.text), kept.messages(in: chat).map(\.text)
        )
    }

    @Test func theRejectedTextIsReportedAndKeptWhenTheRunIsNotKilled() async throws {
        let data = try await Self.dataWithAnEarlierSteer()
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try Self.server()
        defer { Task { await server.shutdown() } }
        let io = Self.io(server, data: data)
        let status = await io.run("workspaces", "send", "sess-43", "Now")
        #expect(status == 65, "\(io.stderr)")
        #expect(io.stdout == "accepted by desk-1: desk-1/proj-app/sess-43\n", "\(io.stderr)")
        #expect(
            io.stderr.contains(
                "the earlier message that was not sent was: \"Steer: keep the old\nlogin form until the migration ran.\"\n"
            ), "\(io.stderr)")
        #expect(io.stderr.contains("kept with the session's undelivered messages"), "\(io.stderr)")
        let after = try await Self.afterRelaunch(data.path + "/sybil/client")
        #expect(after.inOutbox.filter { $0 == Self.text }.isEmpty, "it left the outbox")
        #expect(after.kept == [Self.text], "the terminal app shows it to send again")
    }

    /// Killed before the run wrote anything, or after any step of any of its writes to the
    /// outbox's snapshot and journal or to the kept texts: the text of the rejected message
    /// is on disk every time, and some of those moments fall on each side of its hand-over.
    @Test func theRejectedTextSurvivesAKillAfterAnyWrite() async throws {
        let data = try await Self.dataWithAnEarlierSteer()
        defer { try? FileManager.default.removeItem(at: data) }
        let copies = Self.temporaryDirectory()
        try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: copies) }
        let client = data.path + "/sybil/client"
        let states = DiskStates(directory: client, copies: copies.path)
        states.capture()
        let stores = WorkspacesSendCommand.Stores(
            outbox: { _, _ in
                try WorkspaceOutbox(
                    store: FileKeyValueStore(directory: client), journalCheckpoint: { _ in states.capture() })
            },
            kept: { _, _ in
                WorkspaceUndeliveredMessages.opening(
                    store: { CopyingStore(file: try FileKeyValueStore(directory: client), states: states) },
                    persistence: { .workspaces(in: $0) })
            })
        let server = try Self.server()
        defer { Task { await server.shutdown() } }
        let io = Self.io(server, data: data)
        let status = try await WorkspacesSendCommand.run(["sess-43", "Now"], io: io.io, stores: stores)
        #expect(status == .invalidData, "\(io.stderr)")

        let moments = states.states
        #expect(moments.count >= 8, "a launch's snapshot, the kept text and the outbox's change, step by step")
        var onlyInOutbox = 0
        var onlyKept = 0
        for (index, moment) in moments.enumerated() {
            let after = try await Self.afterRelaunch(moment)
            let inOutbox = after.inOutbox.contains(Self.text)
            let kept = after.kept.contains(Self.text)
            #expect(inOutbox || kept, "killed at moment \(index) of \(moments.count): \(io.stderr)")
            if inOutbox && !kept { onlyInOutbox += 1 }
            if kept && !inOutbox { onlyKept += 1 }
        }
        #expect(onlyInOutbox > 0 && onlyKept > 0, "the kills fall before and after the hand-over")
    }
}
