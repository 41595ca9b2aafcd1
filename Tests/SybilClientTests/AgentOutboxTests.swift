import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// A directory of its own under the system's temporary directory, removed by `cleanUp()`.
struct OutboxDirectory {
    let path: String

    init() {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "sybil-agent-outbox-\(UUID().uuidString)"
            ).path
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: path) }

    func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
}

/// Writes that fail once the phone "died": every later write stops at its first step, as if
/// the process were gone, so the disk keeps what was saved before.
final class DiskSwitch: Sendable {
    struct Dead: Error, CustomStringConvertible {
        var description: String { "the process died" }
    }

    private let dead = Locked(false)
    private let writes = Locked(0)

    var isDead: Bool { dead.withLock { $0 } }
    /// Writes that completed.
    var completedWrites: Int { writes.withLock { $0 } }

    func die() { dead.withLock { $0 = true } }
    func revive() { dead.withLock { $0 = false } }

    /// Every write (a journal append or a snapshot) starts with `.createdTemporary`; only
    /// that step fails. A write already past it when the phone dies finishes, as if the
    /// process died just after it: a write cut off between later steps is a crash at that step
    /// (the journal's own tests), not a dead phone whose outbox is still running.
    var checkpoint: @Sendable (AtomicFile.Step) throws -> Void {
        { [self] step in
            if step == .createdTemporary && isDead { throw Dead() }
            if step == .syncedDirectory { writes.withLock { $0 += 1 } }
        }
    }
}

let outboxBase = URL(string: "http://127.0.0.1:8799/api")!
let outboxNow: @Sendable () -> Int64 = { 1_764_400_200_000 }

@MainActor
func openOutbox(
    _ directory: OutboxDirectory, base: URL = outboxBase, ids: any IDGenerator = SequentialIDGenerator(prefix: "req"),
    disk: DiskSwitch = DiskSwitch()
) async throws -> AgentOutbox {
    try await AgentOutbox.open(
        directory: directory.path, baseURL: base, ids: ids, now: outboxNow, checkpoint: disk.checkpoint)
}

/// The outbox as it is on disk right now (the snapshot with its journal applied).
func storedDocument(_ outbox: AgentOutboxFile) throws -> AgentOutboxDocument {
    let bytes = try #require(try AgentOutboxFile.storedDocument(at: outbox.path))
    let (document, problems) = try AgentOutboxDocument.decode(bytes)
    #expect(problems.isEmpty)
    return document
}

@Suite("Agent outbox", .timeLimit(.minutes(2)))
@MainActor
struct AgentOutboxTests {
    @Test func anEntryIsSavedBeforeEnqueueReturnsWithInjectedIdAndTime() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let outbox = try await openOutbox(directory)
        #expect(try AtomicFile.read(outbox.file.path) == nil, "nothing is written before there is something to keep")
        let entry = try await outbox.enqueue(
            text: "Summarise the build failures.", attachments: [agentAttachment("u1")])
        #expect(entry.requestId == "req-1")
        #expect(entry.createdAt == 1_764_400_200_000)
        #expect(entry.state == .queued)
        #expect(try storedDocument(outbox.file).entries == [entry])
        #expect(outbox.entries == [entry])
        #expect(outbox.revision == 1)
        #expect(outbox.nextAction == .send(entry))
    }

    @Test func theFileHoldsDescriptorsAndIdsOnlyInTheVersion1Format() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let outbox = try await openOutbox(directory)
        var attachment = agentAttachment("0d9c6a4e", fileName: ".env.txt")
        attachment.workspacePath = "uploads/.env.txt"
        try await outbox.enqueue(text: "Look at this", attachments: [attachment], draftId: "draft-1")
        let text = String(decoding: try #require(try AtomicFile.read(outbox.file.path)), as: UTF8.self)
        let sha = String(repeating: "ab", count: 32)
        #expect(
            text
                == #"{"version":1,"baseURL":"http://127.0.0.1:8799/api","entries":[{"requestId":"req-1","text":"Look at this","createdAt":1764400200000,"attachments":[{"uploadId":"0d9c6a4e","fileName":".env.txt","mimeType":"text/plain","size":42,"sha256":""#
                + sha
                + #"","workspacePath":"uploads/.env.txt"}],"draftId":"draft-1","state":"queued","attempts":0}],"retiredDraftIds":[]}"#
        )
        #expect(outbox.file.path == directory.path + "/" + outbox.scope.fileName)
    }

    @Test func fileWorkRunsOffTheMainThread() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let onMain = Locked<[Bool]>([])
        let outbox = try await AgentOutbox.open(
            directory: directory.path, baseURL: outboxBase, ids: SequentialIDGenerator(prefix: "req"), now: outboxNow,
            checkpoint: { _ in onMain.withLock { $0.append(Thread.isMainThread) } })
        try await outbox.enqueue(text: "one")
        #expect(onMain.withLock { $0 } == Array(repeating: false, count: AtomicFile.Step.allCases.count))
    }

    @Test func entriesSurviveARelaunchInOrderWithTheirIdsAndTimes() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let first = try await openOutbox(directory)
        try await first.enqueue(text: "one")
        try await first.enqueue(text: "two", attachments: [agentAttachment("u1"), agentAttachment("u2")])
        let second = try await openOutbox(directory, ids: SequentialIDGenerator(prefix: "later"))
        #expect(second.entries == first.entries)
        #expect(second.loadProblems.isEmpty)
        #expect(try await second.enqueue(text: "three").requestId == "later-1")
        #expect(second.entries.map(\.text) == ["one", "two", "three"])
    }

    // MARK: Scope

    @Test func spellingsOfOneBaseShareAFileAndDifferentBasesNever() throws {
        func scope(_ text: String) throws -> AgentOutboxScope { try AgentOutboxScope(baseURL: URL(string: text)!) }
        let base = try scope("http://h/api")
        for same in ["http://h/api/", "HTTP://H/api", "http://h:80/api", "http://h/api//", "http://h/api#top"] {
            #expect(try scope(same) == base, "\(same)")
        }
        #expect(try scope("http://h").baseURL == "http://h")
        #expect(try scope("http://h/") == scope("http://h"))
        #expect(try scope("https://h:443/api/").baseURL == "https://h/api")
        let others = [
            "https://h/api", "http://h:8080/api", "http://h/api2", "http://h/API", "http://h2/api", "http://h",
            "http://h/api?tenant=2", "http://ann@h/api",
        ]
        let scopes = try others.map(scope)
        #expect(Set(scopes.map(\.fileName)).count == others.count)
        #expect(!scopes.map(\.fileName).contains(base.fileName))
        // A password never reaches the file name or the file.
        #expect(try scope("http://ann:secret@h/api").baseURL == "http://ann@h/api")
        #expect(base.fileName == "agent-outbox-" + Hex.padded(FNV1a64.hash(utf8: "http://h/api")) + ".json")
        for bad in ["ftp://h/api", "file:///tmp/x", "http:///api", "/api"] {
            #expect(throws: AgentOutboxError.invalidBaseURL(URL(string: bad)!.absoluteString)) { try scope(bad) }
        }
    }

    @Test func twoBaseURLsKeepTwoOutboxes() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let production = try await openOutbox(directory, base: URL(string: "https://sybil.example/api")!)
        let local = try await openOutbox(directory, base: outboxBase)
        try await production.enqueue(text: "to production")
        try await local.enqueue(text: "to local")
        let again = try await openOutbox(directory, base: URL(string: "https://SYBIL.example/api/")!)
        #expect(again.entries.map(\.text) == ["to production"])
        #expect(
            try await openOutbox(directory, base: URL(string: "http://127.0.0.1:8799/api/")!).entries.map(\.text)
                == ["to local"])
        #expect(directory.files().count == 2)
    }

    @Test func aFileOfAnotherBaseIsMovedAsideNotMixedIn() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let scope = try AgentOutboxScope(baseURL: outboxBase)
        // As if another base hashed to the same name.
        let foreign = AgentOutboxDocument(
            baseURL: "https://elsewhere.example/api",
            entries: [AgentOutboxEntry(requestId: "x-1", text: "not yours", createdAt: 1)])
        try AtomicFile.createDirectory(directory.path)
        try AtomicFile.write(foreign.encoded(), to: directory.path + "/" + scope.fileName)
        let outbox = try await openOutbox(directory)
        #expect(outbox.entries.isEmpty)
        let aside = directory.path + "/" + scope.fileName + ".unreadable-1"
        #expect(
            outbox.loadProblems == [
                .unreadable(
                    path: outbox.file.path, keptAt: aside,
                    reason:
                        "baseURL: belongs to \"https://elsewhere.example/api\", not \"http://127.0.0.1:8799/api\"")
            ])
        #expect(try AtomicFile.read(aside) == foreign.encoded())
    }

    // MARK: Unreadable files

    @Test func aCorruptFileIsMovedAsideAndReportedNeverSilentlyEmptied() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let scope = try AgentOutboxScope(baseURL: outboxBase)
        let path = directory.path + "/" + scope.fileName
        try AtomicFile.createDirectory(directory.path)
        let garbage = Array(#"{"version":1,"baseURL":"http://127.0.0.1:8799/api","entries":[{"requestId""#.utf8)
        try AtomicFile.write(garbage, to: path)
        let outbox = try await openOutbox(directory)
        #expect(outbox.entries.isEmpty)
        #expect(outbox.loadProblems.count == 1)
        guard case .unreadable(let reported, let keptAt, let reason)? = outbox.loadProblems.first else {
            Issue.record("expected an unreadable-file problem")
            return
        }
        #expect(reported == path && keptAt == path + ".unreadable-1")
        #expect(reason.contains("at byte"), "the syntax error names where: \(reason)")
        #expect(try AtomicFile.read(keptAt) == garbage)
        #expect(try AtomicFile.read(path) == nil, "the original is moved, not copied")
        // A second bad file does not overwrite the first one kept aside.
        try AtomicFile.write(Array("not json".utf8), to: path)
        let again = try await openOutbox(directory)
        guard case .unreadable(_, let secondAside, _)? = again.loadProblems.first else {
            Issue.record("expected an unreadable-file problem")
            return
        }
        #expect(secondAside == path + ".unreadable-2")
        #expect(try AtomicFile.read(path + ".unreadable-1") == garbage)
    }

    @Test func aFileOfAnUnknownVersionIsMovedAside() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let scope = try AgentOutboxScope(baseURL: outboxBase)
        let path = directory.path + "/" + scope.fileName
        try AtomicFile.createDirectory(directory.path)
        let newer = Array(#"{"version":2,"baseURL":"http://127.0.0.1:8799/api","queue":[]}"#.utf8)
        try AtomicFile.write(newer, to: path)
        let outbox = try await openOutbox(directory)
        #expect(outbox.entries.isEmpty)
        #expect(
            outbox.loadProblems == [
                .unreadable(
                    path: path, keptAt: path + ".unreadable-1", reason: "version: only version 1 is understood, got 2"
                )
            ])
        #expect(try AtomicFile.read(path + ".unreadable-1") == newer)
    }

    @Test func anUnreadableEntryIsLeftOutAndTheReadableOnesKept() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let first = try await openOutbox(directory)
        try await first.enqueue(text: "one")
        try await first.enqueue(text: "two")
        try await first.enqueue(text: "three")
        try await first.compact()  // the whole outbox in the snapshot, the journal folded in
        let path = first.file.path
        var text = String(decoding: try #require(try AtomicFile.read(path)), as: UTF8.self)
        text = text.replacingOccurrences(
            of: #""text":"two","createdAt":1764400200000,"attachments":[],"state":"queued""#,
            with: #""text":"two","createdAt":1764400200000,"attachments":[],"state":"lost""#)
        try AtomicFile.write(Array(text.utf8), to: path)
        let second = try await openOutbox(directory)
        #expect(second.entries.map(\.text) == ["one", "three"])
        #expect(
            second.loadProblems == [
                .unreadable(
                    path: path, keptAt: path + ".unreadable-1",
                    reason:
                        "an entry was left out: entries[1].state: must be one of \"queued\", \"sending\", \"awaiting-echo\", \"confirmed\", \"failed\", got \"lost\""
                )
            ])
        #expect(try AtomicFile.read(path + ".unreadable-1") == Array(text.utf8), "the original bytes are kept")
        #expect(try storedDocument(second.file).entries.map(\.text) == ["one", "three"])
    }

    // MARK: Storage failures

    @Test func aDirectoryThatCannotBeWrittenBlocksEnqueueAndKeepsNothingHalfDone() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let outbox = try await openOutbox(directory)
        let kept = try await outbox.enqueue(text: "kept")
        // The directory is replaced by a plain file: nothing can be written in it (root too).
        let stored = try #require(try AtomicFile.read(outbox.file.path))
        try FileManager.default.removeItem(atPath: directory.path)
        try AtomicFile.write([], to: directory.path)
        await #expect(throws: AgentOutboxError.self) { try await outbox.enqueue(text: "the draft stays") }
        guard case .storage(let error)? = outbox.storageFailure else {
            Issue.record("expected a storage failure, got \(String(describing: outbox.storageFailure))")
            return
        }
        #expect(error.path.hasPrefix(directory.path + "/"))
        #expect(outbox.entries == [kept], "the refused message was not queued")
        #expect(outbox.revision == 1)
        #expect(outbox.nextAction == .send(kept))
        // Writable again: the next change is saved, and the failure clears.
        try FileManager.default.removeItem(atPath: directory.path)
        try AtomicFile.createDirectory(directory.path)
        try AtomicFile.write(stored, to: outbox.file.path)
        try await outbox.enqueue(text: "the draft stays")
        #expect(outbox.storageFailure == nil)
        #expect(try storedDocument(outbox.file).entries.map(\.text) == ["kept", "the draft stays"])
        #expect(outbox.entries.map(\.requestId) == ["req-1", "req-3"], "the refused attempt's id is never used")
    }

    @Test func anOutboxInADirectoryThatCannotBeMadeDoesNotOpen() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        try AtomicFile.write([], to: directory.path)
        await #expect(throws: AgentOutboxError.self) {
            _ = try await AgentOutbox.open(
                directory: directory.path + "/outbox", baseURL: outboxBase, ids: SequentialIDGenerator(prefix: "r"),
                now: outboxNow)
        }
    }

    // MARK: Saving together

    @Test func changesAskedForDuringAWriteAreSavedTogetherInOrder() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let gate = WriteGate()
        let outbox = try await AgentOutbox.open(
            directory: directory.path, baseURL: outboxBase, ids: SequentialIDGenerator(prefix: "id"), now: outboxNow,
            checkpoint: gate.checkpoint)
        let first = Task { try await outbox.enqueue(text: "m0") }
        await waitFor("the first write to start") { gate.blockedWrites == 1 }
        var rest: [Task<AgentOutboxEntry, any Error>] = []
        for index in 1...49 { rest.append(Task { try await outbox.enqueue(text: "m\(index)") }) }
        await waitFor("every enqueue to have asked") { outbox.pendingChanges == 50 }
        gate.open()
        _ = try await first.value
        for task in rest { _ = try await task.value }
        #expect(gate.completedWrites == 2, "one write for the first change, one for the 49 asked meanwhile")
        let order = outbox.entries.map(\.requestId)
        #expect(order == (1...50).map { "id-\($0)" }, "saved in the order they were asked for")
        #expect(try storedDocument(outbox.file).entries.map(\.requestId) == order)
        #expect(outbox.revision == 2)
    }

    @Test func aRefusedChangeInABatchFailsAloneAndTheOthersAreSaved() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let gate = WriteGate()
        let outbox = try await AgentOutbox.open(
            directory: directory.path, baseURL: outboxBase, ids: SequentialIDGenerator(prefix: "req"), now: outboxNow,
            checkpoint: gate.checkpoint)
        let first = Task { try await outbox.enqueue(text: "one") }
        await waitFor("the first write to start") { gate.blockedWrites == 1 }
        let empty = Task { try await outbox.enqueue(text: "   ") }
        let retry = Task { try await outbox.retry("req-1") }
        let second = Task { try await outbox.enqueue(text: "two") }
        await waitFor("the changes to be asked for") { outbox.pendingChanges == 4 }
        gate.open()
        _ = try await first.value
        await #expect(throws: AgentOutboxError.emptyMessage) { _ = try await empty.value }
        await #expect(throws: AgentOutboxError.wrongState(requestId: "req-1", state: .queued, change: "retried")) {
            try await retry.value
        }
        _ = try await second.value
        #expect(outbox.entries.map(\.text) == ["one", "two"])
        #expect(gate.completedWrites == 2)
        #expect(outbox.pendingChanges == 0)
    }
}

/// Holds write number `blocking` (counting from 1) at its first step until opened; the other
/// writes pass.
final class WriteGate: Sendable {
    private let blocking: Int
    private let state = Locked((open: false, started: 0, blocked: 0, completed: 0))
    private let condition = NSCondition()

    init(blocking: Int = 1) { self.blocking = blocking }

    var blockedWrites: Int { state.withLock { $0.blocked } }
    var completedWrites: Int { state.withLock { $0.completed } }

    func open() {
        condition.lock()
        state.withLock { $0.open = true }
        condition.broadcast()
        condition.unlock()
    }

    var checkpoint: @Sendable (AtomicFile.Step) throws -> Void {
        { [self] step in
            switch step {
            case .createdTemporary:
                let hold = state.withLock { state -> Bool in
                    state.started += 1
                    guard state.started == blocking else { return false }
                    state.blocked += 1
                    return true
                }
                guard hold else { return }
                condition.lock()
                while !state.withLock({ $0.open }) { condition.wait() }
                condition.unlock()
            case .syncedDirectory:
                state.withLock { $0.completed += 1 }
            default:
                break
            }
        }
    }
}

/// Waits (re-checking) until `condition` holds; records an issue if it never does.
@MainActor
func waitFor(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping @MainActor () -> Bool
) async {
    if !(await ConditionWait.until(condition)) {
        Issue.record("gave up waiting for \(what)", sourceLocation: sourceLocation)
    }
}
