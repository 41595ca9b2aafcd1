import Foundation
import Observation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilStore
import SybilTesting
import SybilWire

// `agent-outbox`: the Agent room outbox against the reference server in this process
// (in-memory storage, no pause between agent steps, loopback, a bearer token).
//
// The outbox path: 1,000 messages queued one after another through `AgentOutbox.enqueue`
// (each saved atomically on disk with fsync before it returns) while the sender is stopped,
// as when the agent works or the network is down; then `AgentOutboxSender` sends them one at
// a time through `AgentRoomHTTPClient`, and an `AgentRoomModel` following the room (its
// `agent/stream` WebSocket) hands every merged message to the sender, whose echo confirms its
// entry; timed until the last entry is confirmed. It runs twice: with confirmed entries kept
// (as the tests look at them) and with `removesConfirmed: true` (the app's and `sybil agent`'s
// setting: the echo retires its entry in the same write, so the file shrinks), timed until the
// outbox is empty. The baseline: 1,000 bare `POST agent/messages` of the same submissions (the
// same JSON bytes), one at a time, through `DefaultHTTPClient` (the socket client on Linux, as
// under the outbox path). Each path runs on a fresh server; best of the rounds; the ratio is
// messages per second of the delivery (queued → confirmed) over the bare POSTs.
//
// Sent as typed: the same 1,000 messages, each queued while the sender runs and waits with
// nothing to send (a person typing one message at a time), the enqueue awaited, then waited
// for until the room's echo confirmed (or retired) it before the next: what one message costs
// from queued to confirmed when it is alone (fsyncs and bytes written per message).

private let agentBenchToken = "bench-token"
private let agentBenchCreatedAt: Int64 = 1_800_000_000_000

private struct AgentOutboxBenchFailure: Error, CustomStringConvertible {
    var description: String
}

private func startAgentBenchServer() throws -> ReferenceServer {
    var options = SybilServerOptions(token: agentBenchToken)
    options.storage = .inMemory
    options.pace = .zero
    options.messagesPerMinute = 1_000_000
    return try ReferenceServer(options: options)
}

private func agentBenchText(_ index: Int) -> String {
    "Message \(index): summarise the build failures and suggest a fix."
}

/// `POST agent/messages` of `submission`, the body as the outbox path sends it.
private func agentBenchRequest(_ baseURL: URL, _ submission: AgentRoomSubmission) -> HTTPRequest {
    HTTPRequest(
        method: "POST", url: APIEndpoint.url(base: baseURL, path: "agent/messages"),
        headers: HTTPHeaders([("Authorization", "Bearer \(agentBenchToken)"), ("Content-Type", "application/json")]),
        body: JSONWriter().bytes(from: submission.jsonValue), timeout: .seconds(30))
}

/// 1,000 bare POSTs, one at a time; seconds, and the process's processor seconds (every
/// thread: the client's and the server's).
private func agentBenchBare(count: Int, round: Int) async throws -> (seconds: Double, processor: Double) {
    let server = try startAgentBenchServer()
    let http = DefaultHTTPClient.make()
    let processorStart = processCPUSeconds()
    let start = ContinuousClock.now
    agentBenchProfileMark("bare start")
    for index in 0..<count {
        let submission = AgentRoomSubmission(
            requestId: "bare-\(round)-\(index)", text: agentBenchText(index), createdAt: agentBenchCreatedAt)
        let response = try await http.send(agentBenchRequest(server.baseURL, submission))
        let body = try await response.collect()
        guard response.head.status == 202 else {
            throw AgentOutboxBenchFailure(description: "bare POST answered \(response.head.status)")
        }
        blackHole(body)
    }
    let elapsed = seconds(start.duration(to: ContinuousClock.now))
    let processor = processCPUSeconds() - processorStart
    agentBenchProfileMark("bare end")
    await server.shutdown(grace: .zero)
    return (elapsed, processor)
}

/// With `SYBIL_BENCH_AGENT_PROFILE` set, prints `label` and the monotonic clock in seconds to
/// standard error (`perf record -k CLOCK_MONOTONIC` samples can be cut to that span with
/// `perf report --time`).
private func agentBenchProfileMark(_ label: String) {
    guard ProcessInfo.processInfo.environment["SYBIL_BENCH_AGENT_PROFILE"] != nil else { return }
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let text =
        "\(label) \(now.tv_sec).\(String(format: "%09d", now.tv_nsec)) user \(usage.ru_utime.tv_sec).\(String(format: "%06d", usage.ru_utime.tv_usec)) "
        + "system \(usage.ru_stime.tv_sec).\(String(format: "%06d", usage.ru_stime.tv_usec)) "
        + "switches \(usage.ru_nvcsw) + \(usage.ru_nivcsw)\n"
    FileHandle.standardError.write(Data(text.utf8))
}

/// Waits until `condition` holds, read again each time observable state it read changes (no
/// polling: one timer task bounds the whole wait, where `ConditionWait` starts a recheck timer
/// for every change); `false` when `limit` passed first.
@MainActor
private func agentBenchWait(limit: Duration, _ condition: @escaping @MainActor () -> Bool) async -> Bool {
    let waiter = AgentBenchWaiter()
    let deadline = Task {
        try? await ContinuousClock().sleep(for: limit)
        waiter.expire()
    }
    defer { deadline.cancel() }
    while true {
        let holds = withObservationTracking {
            condition()
        } onChange: {
            waiter.signal()
        }
        if holds { return true }
        if waiter.isExpired { return false }
        await waiter.wait()
    }
}

/// The wake-up of ``agentBenchWait(limit:_:)``: a change (or the limit) seen before the wait
/// began ends the next wait at once.
private final class AgentBenchWaiter: Sendable {
    private struct State {
        var signalled = false
        var expired = false
        var continuation: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    var isExpired: Bool { state.withLock { $0.expired } }

    func signal() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.continuation = nil }
            if state.continuation == nil { state.signalled = true }
            return state.continuation
        }?.resume()
    }

    func expire() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.expired = true
            defer { state.continuation = nil }
            return state.continuation
        }?.resume()
    }

    /// Resumes on the caller's actor (the main actor), not on the cooperative pool first: the
    /// wait runs after every saved write of the delivery it times.
    func wait(isolation: isolated (any Actor)? = #isolation) async {
        await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.signalled || state.expired {
                    state.signalled = false
                    return true
                }
                state.continuation = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// What one outbox run measured.
private struct AgentOutboxBenchRun {
    /// Seconds to queue every message (each saved before the next).
    var enqueue: Double
    /// Seconds from starting the sender until every message was confirmed (or, when confirmed
    /// entries are removed, until the outbox was empty).
    var delivery: Double
    /// The process's processor seconds in that time (every thread: client, room and server).
    var deliveryProcessor: Double
    /// Outbox file writes during the delivery.
    var deliveryWrites: Int
    /// Bytes of the outbox file summed over those writes.
    var deliveryBytes: Int
    /// The file's size once every message was queued, and once the delivery ended.
    var fileBytesQueued: Int
    var fileBytesDelivered: Int
    /// Bytes written from the first enqueue until the delivery ended, and the fsyncs of the
    /// file written in that time, and during the delivery.
    var totalBytes: Int
    var totalFsyncs: Int
    var deliveryFsyncs: Int
    /// One queued entry's encoded size (as the snapshot stores it).
    var entryBytes: Int
}

/// The size of the file at `path`, 0 when missing.
private func agentBenchFileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

/// 1,000 messages queued, then sent by `AgentOutboxSender` over `AgentRoomHTTPClient` until
/// an `AgentRoomModel` following the room has merged each echo and the sender confirmed (or,
/// with `removesConfirmed`, retired) its entry.
/// With `typed`, the sender runs from the start and each message is queued while it waits, and
/// confirmed before the next is queued.
@MainActor
private func agentBenchOutbox(
    count: Int, round: Int, removesConfirmed: Bool, typed: Bool = false
) async throws -> AgentOutboxBenchRun {
    let server = try startAgentBenchServer()
    let base = try AgentAPIBase(server.baseURL)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "sybil-bench-agent-outbox-\(getpid())-\(round)-\(removesConfirmed)-\(typed)"
    ).path
    try? FileManager.default.removeItem(atPath: directory)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/" + (try AgentOutboxScope(baseURL: base.url)).fileName
    // Each write (a journal append, or a compaction's snapshot), the fsyncs of the file
    // written, and the bytes it added to the disk (the journal's growth, or the snapshot).
    // The journal's size is read only when a compaction is about to remove it and when the
    // figures are taken (`written()`), not after every append: a `stat` per append was the
    // benchmark's own work on the outbox's file queue, between the requests it times.
    let writes = Locked((count: 0, bytes: 0, journal: 0, fsyncs: 0))
    let written = {
        let size = agentBenchFileSize(path + ".journal")
        return writes.withLock { (count: $0.count, bytes: $0.bytes + size - $0.journal, fsyncs: $0.fsyncs) }
    }
    let outbox = try await AgentOutbox.open(
        directory: directory, baseURL: base.url, ids: SequentialIDGenerator(prefix: "outbox-\(round)"),
        now: { agentBenchCreatedAt },
        journalCheckpoint: { step in
            switch step {
            case .append(.committed): writes.withLock { $0.count += 1 }
            case .snapshot(.renamed):
                // The journal it replaces is still there, whole.
                let size = agentBenchFileSize(path)
                let journal = agentBenchFileSize(path + ".journal")
                writes.withLock {
                    $0.bytes += size + journal - $0.journal
                    $0.journal = journal
                    $0.count += 1
                }
            case .append(.synced), .snapshot(.syncedTemporary): writes.withLock { $0.fsyncs += 1 }
            case .removedJournal: writes.withLock { $0.journal = 0 }
            default: break
            }
        })
    let tokens = TokenProvider(
        current: TokenLocation(store: InMemorySecretStore(["bench": agentBenchToken]), account: "bench"))
    let random = SeededRandomSource(seed: 9)
    let sender = AgentOutboxSender(
        outbox: outbox,
        api: AgentRoomHTTPClient(
            base: base, http: DefaultHTTPClient.make(redirects: .deliver), tokens: tokens, random: random),
        removesConfirmed: removesConfirmed)

    // The room, as the app has it: every merged message goes to the sender.
    let room = AgentRoomModel(
        base: base, tokens: tokens, http: DefaultHTTPClient.make(redirects: .deliver), clock: ContinuousClock(),
        random: random, timeZone: TimeZone(identifier: "UTC")!)
    room.onMessageMerged = { sender.messageMerged($0) }
    await room.start()
    guard await ConditionWait.until(limit: .seconds(30), { room.connection == .connected }) else {
        throw AgentOutboxBenchFailure(description: "the room's stream did not connect: \(room.roomError ?? "")")
    }

    let writesAtStart = written()
    if typed { sender.start() }
    let queuing = ContinuousClock.now
    for index in 0..<count {
        if typed {
            guard await ConditionWait.until(limit: .seconds(30), { sender.isWaiting && outbox.pendingChanges == 0 })
            else { throw AgentOutboxBenchFailure(description: "the sender did not come to wait for message \(index)") }
        }
        try await outbox.enqueue(text: agentBenchText(index))
        if typed {
            let confirmed = await ConditionWait.until(limit: .seconds(30)) {
                outbox.pendingChanges == 0 && sender.pendingConfirmations == 0
                    && (removesConfirmed ? outbox.entries.isEmpty : outbox.entries.last?.state == .confirmed)
            }
            guard confirmed else {
                throw AgentOutboxBenchFailure(description: "message \(index) was not confirmed alone")
            }
        }
    }
    let enqueue = seconds(queuing.duration(to: ContinuousClock.now))
    let requestIds = typed ? (1...count).map { "outbox-\(round)-\($0)" } : outbox.entries.map(\.requestId)
    // The first message as queued (the entries may have left already when sent as typed).
    let first = AgentOutboxEntry(
        requestId: requestIds[0], text: agentBenchText(0), createdAt: agentBenchCreatedAt)
    let entryBytes =
        AgentOutboxDocument(baseURL: "", entries: [first]).encoded().count
        - AgentOutboxDocument(baseURL: "").encoded().count
    let fileBytesQueued = agentBenchFileSize(path) + agentBenchFileSize(path + ".journal")
    let writesBefore = written()
    sender.start()
    let processorStart = processCPUSeconds()
    let start = ContinuousClock.now
    agentBenchProfileMark("delivery start")
    // The watcher reads counters only (O(1) per change): walking the 1,000 entries on every
    // change, as it did, cost the process about 5 % of its processor time in the delivery.
    // The queue first: until the last entry is confirmed only it is observed (one wake-up per
    // saved write, not one per change of the counters).
    var delivered = await agentBenchWait(limit: .seconds(600)) {
        (removesConfirmed
            ? outbox.queue.entries.isEmpty : outbox.queue.confirmedCount == outbox.queue.entries.count)
            && outbox.pendingChanges == 0 && sender.pendingConfirmations == 0
    }
    let elapsed = seconds(start.duration(to: ContinuousClock.now))
    let deliveryProcessor = processCPUSeconds() - processorStart
    agentBenchProfileMark("delivery end")
    // Checked whole once, out of the timing.
    delivered = delivered && outbox.entries.allSatisfy { $0.state == .confirmed }
    let writesAfter = written()
    let fileBytesDelivered = agentBenchFileSize(path) + agentBenchFileSize(path + ".journal")
    let echoed = room.history.messages.filter { $0.role == .user }.compactMap(\.requestId)
    await room.stop()
    await sender.stop()
    await server.shutdown(grace: .zero)
    guard delivered else {
        let states = Dictionary(grouping: outbox.entries, by: \.state).mapValues(\.count)
        throw AgentOutboxBenchFailure(description: "not every message was confirmed: \(states)")
    }
    guard echoed == requestIds else {
        throw AgentOutboxBenchFailure(
            description: "the room holds \(echoed.count) user messages, not the \(count) queued, each once in order")
    }
    guard removesConfirmed || outbox.entries.allSatisfy({ $0.attempts == 1 }) else {
        throw AgentOutboxBenchFailure(description: "a message was sent more than once")
    }
    return AgentOutboxBenchRun(
        enqueue: enqueue, delivery: elapsed, deliveryProcessor: deliveryProcessor,
        deliveryWrites: writesAfter.count - writesBefore.count,
        deliveryBytes: writesAfter.bytes - writesBefore.bytes, fileBytesQueued: fileBytesQueued,
        fileBytesDelivered: fileBytesDelivered, totalBytes: writesAfter.bytes - writesAtStart.bytes,
        totalFsyncs: writesAfter.fsyncs - writesAtStart.fsyncs,
        deliveryFsyncs: writesAfter.fsyncs - writesBefore.fsyncs,
        entryBytes: entryBytes)
}

/// `agent-outbox`: `SYBIL_BENCH_AGENT_MESSAGES` changes the 1,000 messages per path; best of
/// `rounds` (at most 3: each round sends 3,000 messages).
@MainActor
func benchmarkAgentOutbox(repetitions: Int) async {
    let count = Int(ProcessInfo.processInfo.environment["SYBIL_BENCH_AGENT_MESSAGES"] ?? "") ?? scaled(1_000)
    let rounds = max(1, min(repetitions, 3))
    do {
        var bare = Double.infinity
        var bareProcessor = Double.infinity
        var kept: AgentOutboxBenchRun?
        var removed: AgentOutboxBenchRun?
        var typedKept: AgentOutboxBenchRun?
        var typedRemoved: AgentOutboxBenchRun?
        // `SYBIL_BENCH_AGENT_PROFILE=delivery` runs only the two deliveries, `=bare` only the
        // bare POSTs (for a profiler); nothing is printed.
        switch ProcessInfo.processInfo.environment["SYBIL_BENCH_AGENT_PROFILE"] {
        case "delivery":
            for round in 0..<rounds {
                _ = try await agentBenchOutbox(count: count, round: round, removesConfirmed: false)
                _ = try await agentBenchOutbox(count: count, round: round, removesConfirmed: true)
            }
            return
        case "bare":
            for round in 0..<rounds { _ = try await agentBenchBare(count: count, round: round) }
            return
        default: break
        }
        for round in 0..<rounds {
            // The paths take turns, so a noisy stretch of the shared machine hits all of them.
            let bareRun = try await agentBenchBare(count: count, round: round)
            if bareRun.seconds < bare { (bare, bareProcessor) = (bareRun.seconds, bareRun.processor) }
            let keeping = try await agentBenchOutbox(count: count, round: round, removesConfirmed: false)
            if kept.map({ keeping.delivery < $0.delivery }) ?? true { kept = keeping }
            let removing = try await agentBenchOutbox(count: count, round: round, removesConfirmed: true)
            if removed.map({ removing.delivery < $0.delivery }) ?? true { removed = removing }
            let typing = try await agentBenchOutbox(count: count, round: round, removesConfirmed: false, typed: true)
            if typedKept.map({ typing.enqueue < $0.enqueue }) ?? true { typedKept = typing }
            let typingRemoved = try await agentBenchOutbox(
                count: count, round: round, removesConfirmed: true, typed: true)
            if typedRemoved.map({ typingRemoved.enqueue < $0.enqueue }) ?? true { typedRemoved = typingRemoved }
        }
        guard let kept, let removed, let typedKept, let typedRemoved else { return }
        let bareRate = Double(count) / bare
        print(
            "agent outbox: \(count) messages, best of \(rounds); bare POST agent/messages \(format(bareRate, 0)) msg/s "
                + "(\(format(bare, 2)) s, processor time \(format(bareProcessor / Double(count) * 1e6, 0)) µs per message)"
        )
        for (name, run) in [("confirmed entries kept", kept), ("removesConfirmed: true", removed)] {
            let rate = Double(count) / run.delivery
            print(
                "  \(name): queued one by one, each saved (fsync) before the next: "
                    + "\(format(Double(count) / run.enqueue, 0)) msg/s (\(format(run.enqueue, 2)) s); "
                    + "queued → sent in order → confirmed by the room's echo: \(format(rate, 0)) msg/s "
                    + "(\(format(run.delivery, 2)) s, \(run.deliveryWrites) file writes, "
                    + "\(format(Double(run.deliveryWrites) / Double(count), 2)) per message, "
                    + "delivery bytes \(format(Double(run.deliveryBytes) / Double(count * run.entryBytes), 2)) x encoded, "
                    + "\(format(Double(run.deliveryBytes) / 1_048_576, 1)) MiB written, file "
                    + "\(format(Double(run.fileBytesQueued) / 1024, 0)) KiB queued → "
                    + "\(format(Double(run.fileBytesDelivered) / 1024, 1)) KiB delivered); "
                    + "ratio to bare POSTs \(format(rate / bareRate)) x (processor time "
                    + "\(format(run.deliveryProcessor / Double(count) * 1e6, 0)) µs per message); "
                    + "queued → confirmed per message: "
                    + "\(format(Double(run.totalFsyncs) / Double(count), 3)) fsyncs "
                    + "(delivery \(format(Double(run.deliveryFsyncs) / Double(count), 3))), "
                    + "\(format(Double(run.totalBytes) / Double(count), 0)) bytes = "
                    + "\(format(Double(run.totalBytes) / Double(count * run.entryBytes), 2)) x its encoded size "
                    + "(\(run.entryBytes) bytes)")
        }
        for (name, run) in [("confirmed entries kept", typedKept), ("removesConfirmed: true", typedRemoved)] {
            print(
                "  sent as typed, \(name): each queued while the sender waits and confirmed before the next: "
                    + "\(format(Double(count) / run.enqueue, 0)) msg/s (\(format(run.enqueue, 2)) s); per message "
                    + "queued → confirmed: \(format(Double(run.totalFsyncs) / Double(count), 2)) fsyncs, "
                    + "\(format(Double(run.totalBytes) / Double(count), 0)) bytes = "
                    + "\(format(Double(run.totalBytes) / Double(count * run.entryBytes), 2)) x its encoded size "
                    + "(\(run.entryBytes) bytes)")
        }
    } catch {
        caseFailed("agent outbox: failed: \(error)")
    }
}
