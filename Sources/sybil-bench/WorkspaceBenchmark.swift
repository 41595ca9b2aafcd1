import Foundation
import Observation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// `workspace`: workspace chats against the reference server in this process (in-memory
// storage, no pause between scripted tokens, loopback, a bearer token).
//
// 1. Sends through the whole client path (composer → outbox save → sender → desktop client
//    over URLSession), the host following the chat through a live feed so that the overlay
//    confirms each message, against bare `POST /v1/workspaces/rpc` round trips of the same
//    RPC through the same URLSession client. One message at a time, as a user sends: each
//    waits for its confirmation and for its run to end before the next, so runs never queue.
//    The three paths (bare, outbox in memory, outbox on disk) take turns message by message,
//    each on its own chat, so a noisy stretch of the shared machine hits all three.
// 2. Events fan-out: the time from a submit until the last of 100 followers has the overlay
//    carrying it, against the same with one follower.

private let benchToken = "bench-token"
private let debugWorkspace = ProcessInfo.processInfo.environment["SYBIL_BENCH_DEBUG"] != nil
private let workspaceClock = ContinuousClock()

private func benchTokens() -> TokenProvider {
    TokenProvider(current: TokenLocation(store: InMemorySecretStore(["bench": benchToken]), account: "bench"))
}

private func startWorkspaceServer() throws -> ReferenceServer {
    var options = SybilServerOptions(token: benchToken)
    options.storage = .inMemory
    options.pace = .zero
    return try ReferenceServer(options: options)
}

/// Nearest-rank percentile of sorted values.
private func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[max(0, min(sorted.count - 1, rank))]
}

private func milliseconds(_ value: Double) -> String { format(value * 1000, 2) }

private struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

// MARK: Waiting

/// State changed by stream readers, with waits for a condition over it (no polling).
private final class Watched<State: Sendable>: Sendable {
    private struct Box {
        var state: State
        var waiters: [(id: Int, condition: @Sendable (State) -> Bool, continuation: CheckedContinuation<Bool, Never>)] =
            []
        var next = 0
    }

    private let box: Locked<Box>

    init(_ state: State) { box = Locked(Box(state: state)) }

    func read<T: Sendable>(_ body: (State) -> T) -> T { box.withLock { body($0.state) } }

    func update(_ change: (inout State) -> Void) {
        let ready = box.withLock { box -> [CheckedContinuation<Bool, Never>] in
            change(&box.state)
            let state = box.state
            let ready = box.waiters.filter { $0.condition(state) }
            box.waiters.removeAll { $0.condition(state) }
            return ready.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// Returns true once `condition` holds, false after `limit`.
    func wait(limit: Duration = .seconds(30), until condition: @escaping @Sendable (State) -> Bool) async -> Bool {
        var deadline: Task<Void, Never>?
        let met = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id = box.withLock { box -> Int? in
                if condition(box.state) { return nil }
                box.next += 1
                box.waiters.append((box.next, condition, continuation))
                return box.next
            }
            guard let id else { return continuation.resume(returning: true) }
            deadline = Task {
                try? await Task.sleep(for: limit)  // real clock: a benchmark measures wall time
                self.giveUp(id)
            }
        }
        deadline?.cancel()
        return met
    }

    private func giveUp(_ id: Int) {
        let waiter = box.withLock { box in
            box.waiters.firstIndex { $0.id == id }.map { box.waiters.remove(at: $0) }
        }
        waiter?.continuation.resume(returning: false)
    }
}

/// Returns true once `condition` over observable main-actor state holds, false after `limit`.
@MainActor
private func waitUntil(limit: Duration = .seconds(30), _ condition: @escaping @MainActor () -> Bool) async -> Bool {
    await ConditionWait.until(limit: limit, recheck: .milliseconds(250), condition)
}

// MARK: A raw events stream

/// Reads `GET /v1/workspaces/events` of one chat as bytes: notes when an `overlay` or an
/// `overlay.delta` (whose changed blocks hold a new message) carrying the expected operation id
/// arrives (a byte search, no decoding) and counts runs that ended.
/// It is the bare path's confirmation and tells every path when its run is over.
private final class RawEventWatcher: Sendable {
    struct State: Sendable {
        var opened = false
        var expected: [UInt8] = []
        var expectedSeenAt: ContinuousClock.Instant?
        var endedRuns = 0
        var problem: String?
    }

    let state = Watched(State())
    private let task = Locked<Task<Void, Never>?>(nil)

    init(baseURL: URL, chat: WorkspaceChatKey) {
        let state = state
        let request = eventsRequest(baseURL: baseURL, chat: chat)
        task.withLock {
            $0 = Task {
                let http = DefaultHTTPClient.make()
                do {
                    let response = try await http.send(request)
                    guard response.head.status == 200 else {
                        throw BenchmarkFailure("events answered \(response.head.status)")
                    }
                    state.update { $0.opened = true }
                    var parser = EventStreamParser()
                    for try await chunk in response.body {
                        for event in try parser.feed(chunk) {
                            let now = workspaceClock.now
                            if event.type == "overlay" || event.type == "overlay.delta" {
                                let data = event.dataBytes
                                let found = state.read { state in
                                    state.expectedSeenAt == nil && !state.expected.isEmpty
                                        && contains(data, state.expected)
                                }
                                if found { state.update { $0.expectedSeenAt = now } }
                            } else if event.type == "run",
                                case .run(_, let runState)? = try? WorkspaceEvent.decode(
                                    name: event.type, data: event.dataBytes),
                                runState != .queued && runState != .started
                            {
                                state.update { $0.endedRuns += 1 }
                            }
                        }
                    }
                    state.update { $0.problem = "the events stream ended" }
                } catch {
                    state.update { $0.problem = "events stream: \(error)" }
                }
            }
        }
    }

    /// The overlay to look for next: the one carrying `operationId`.
    func expect(_ operationId: String) {
        let needle = Array("\"\(operationId)\"".utf8)
        state.update {
            $0.expected = needle
            $0.expectedSeenAt = nil
        }
    }

    func stop() { task.withLock { $0 }?.cancel() }
}

private func eventsRequest(baseURL: URL, chat: WorkspaceChatKey) -> HTTPRequest {
    var components = URLComponents(
        url: baseURL.appendingPathComponent("v1/workspaces/events"), resolvingAgainstBaseURL: false)!
    components.queryItems = [
        URLQueryItem(name: "desktopId", value: chat.desktopId), URLQueryItem(name: "projectId", value: chat.projectId),
        URLQueryItem(name: "sessionId", value: chat.sessionId),
    ]
    return HTTPRequest(
        method: "GET", url: components.url!,
        headers: HTTPHeaders([("Accept", "text/event-stream"), ("Authorization", "Bearer \(benchToken)")]))
}

/// Whether `needle` occurs in `haystack` (`memchr` for its first byte, then `memcmp`; glibc's
/// `memmem` is not visible to Swift without _GNU_SOURCE).
private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard let first = needle.first else { return true }
    return haystack.withUnsafeBytes { hay in
        needle.withUnsafeBytes { pin in
            guard let base = hay.baseAddress, hay.count >= pin.count else { return false }
            var cursor = base
            let lastStart = base + (hay.count - pin.count)
            while cursor <= lastStart, let hit = memchr(cursor, Int32(first), lastStart - cursor + 1) {
                if memcmp(hit, pin.baseAddress!, pin.count) == 0 { return true }
                cursor = UnsafeRawPointer(hit) + 1
            }
            return false
        }
    }
}

// MARK: Sends

/// One phone for one chat: outbox on `store`, host followed by a live feed, sender and
/// composer, as the app wires them.
@MainActor
private final class BenchPhone {
    let chat: WorkspaceChatKey
    let host: WorkspaceChatHost
    let composer: WorkspaceChatComposer
    let feed = WorkspaceLiveFeed()
    let watcher: RawEventWatcher

    init(
        server: ReferenceServer, chat: WorkspaceChatKey, store: any KeyValueStore, rpcHTTP: any HTTPClient,
        idPrefix: String
    ) async throws {
        self.chat = chat
        let desktop = WorkspaceDesktopClient(baseURL: server.baseURL, http: rpcHTTP, tokens: benchTokens())
        let ids = SequentialIDGenerator(prefix: idPrefix)  // call keys are unique per server
        let outbox = try WorkspaceOutbox(store: store)
        host = WorkspaceChatHost(key: chat, rpc: desktop, clock: ContinuousClock(), random: SeededRandomSource(seed: 7))
        let sender = WorkspaceOutboxSender(
            outbox: outbox, rpc: desktop, clock: ContinuousClock(), ids: ids, now: { 1_800_000_000_000 })
        composer = WorkspaceChatComposer(
            host: host, outbox: outbox, sender: sender, ids: ids, now: { 1_800_000_000_000 })
        watcher = RawEventWatcher(baseURL: server.baseURL, chat: chat)
        host.activate()
        let events = WorkspaceEventsClient(
            chat: chat, baseURL: server.baseURL, http: DefaultHTTPClient.make(), tokens: benchTokens(),
            clock: ContinuousClock(), random: SeededRandomSource(seed: 1))
        feed.follow(events.updates(), host: host)
        let host = host
        let feed = feed
        guard await waitUntil({ host.appliedLoads > 0 && feed.eventsHandled > 0 }),
            await watcher.state.wait(until: { $0.opened })
        else { throw BenchmarkFailure("\(chat.sessionId): no first load or no events") }
    }

    /// Sends `text`; returns (accepted, confirmed) seconds, and waits for its run to end.
    func send(_ text: String, runsBefore: Int) async throws -> (Double, Double) {
        composer.draft = text
        let start = workspaceClock.now
        let outcome = await composer.send()
        let accepted = seconds(start.duration(to: workspaceClock.now))
        guard outcome == .accepted else {
            throw BenchmarkFailure("\(chat.sessionId): send ended \(String(describing: outcome))")
        }
        let composer = composer
        guard await waitUntil({ composer.deliveries.isEmpty }) else {
            throw BenchmarkFailure("\(chat.sessionId): never confirmed")
        }
        let confirmed = seconds(start.duration(to: workspaceClock.now))
        guard await watcher.state.wait(until: { $0.endedRuns > runsBefore }) else {
            throw BenchmarkFailure("\(chat.sessionId): the run never ended")
        }
        return (accepted, confirmed)
    }

    func stop() async {
        await feed.stop()
        host.park()
        watcher.stop()
    }
}

/// The bare path: the same RPC as bytes through the same HTTP client; the confirmation is the
/// raw events stream carrying the operation id.
private final class BarePath {
    let http: any HTTPClient
    let url: URL
    let chat: WorkspaceChatKey
    let watcher: RawEventWatcher

    init(server: ReferenceServer, chat: WorkspaceChatKey, http: any HTTPClient) async throws {
        self.http = http
        self.chat = chat
        url = server.baseURL.appendingPathComponent("v1/workspaces/rpc")
        watcher = RawEventWatcher(baseURL: server.baseURL, chat: chat)
        guard await watcher.state.wait(until: { $0.opened }) else { throw BenchmarkFailure("bare: no events") }
    }

    func send(_ text: String, index: Int) async throws -> (Double, Double) {
        let operationId = "bare-\(index)"
        let body = WorkspaceSubmission(
            chat: chat, operationId: operationId, mutationId: "bare-m-\(index)", mode: .send, text: text
        ).request.body
        let request = HTTPRequest(
            method: "POST", url: url,
            headers: HTTPHeaders([
                ("Content-Type", "application/json"), ("Accept", "application/json"),
                ("Authorization", "Bearer \(benchToken)"),
            ]), body: body, timeout: .seconds(30))
        watcher.expect(operationId)
        let start = workspaceClock.now
        let response = try await http.send(request)
        let answer = try await response.collect(limit: 1 << 20)
        let accepted = seconds(start.duration(to: workspaceClock.now))
        guard response.head.status == 200 else {
            throw BenchmarkFailure("bare: status \(response.head.status): \(String(decoding: answer, as: UTF8.self))")
        }
        guard await watcher.state.wait(until: { $0.expectedSeenAt != nil }),
            let seen = watcher.state.read({ $0.expectedSeenAt })
        else { throw BenchmarkFailure("bare: the overlay never came") }
        let confirmed = seconds(start.duration(to: seen))
        guard await watcher.state.wait(until: { $0.endedRuns > index }) else {
            throw BenchmarkFailure("bare: the run never ended")
        }
        return (accepted, confirmed)
    }
}

private struct Latencies {
    var accepted: [Double] = []
    var confirmed: [Double] = []

    mutating func add(_ sample: (Double, Double)) {
        accepted.append(sample.0)
        confirmed.append(sample.1)
    }

    var p50: (Double, Double) { (percentile(accepted.sorted(), 0.5), percentile(confirmed.sorted(), 0.5)) }
    var p99: (Double, Double) { (percentile(accepted.sorted(), 0.99), percentile(confirmed.sorted(), 0.99)) }
}

@MainActor
private func benchmarkWorkspaceSends(count: Int, warmUp: Int) async throws {
    let server = try startWorkspaceServer()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-bench-workspace-\(getpid())")
        .path
    try? FileManager.default.removeItem(atPath: directory)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // One URLSession client carries every RPC of the three paths.
    let rpcHTTP = DefaultHTTPClient.make()
    let bare = try await BarePath(
        server: server, chat: WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-43"),
        http: rpcHTTP)
    let memory = try await BenchPhone(
        server: server, chat: WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-site", sessionId: "sess-50"),
        store: InMemoryKeyValueStore(), rpcHTTP: rpcHTTP, idPrefix: "memory")
    let file = try await BenchPhone(
        server: server, chat: WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42"),
        store: try FileKeyValueStore(directory: directory + "/kv"), rpcHTTP: rpcHTTP, idPrefix: "disk")
    var bareTimes = Latencies()
    var memoryTimes = Latencies()
    var fileTimes = Latencies()
    let start = workspaceClock.now
    for index in 0..<(warmUp + count) {
        let text = "Message \(index): please fix the login form."
        let b = try await bare.send(text, index: index)
        let m = try await memory.send(text, runsBefore: index)
        let f = try await file.send(text, runsBefore: index)
        if debugWorkspace, max(b.1, m.1, f.1) > 0.5 {
            print("  slow message \(index): bare \(b), memory \(m), disk \(f)")
        }
        if index >= warmUp {
            bareTimes.add(b)
            memoryTimes.add(m)
            fileTimes.add(f)
        }
    }
    let elapsed = seconds(start.duration(to: workspaceClock.now))
    await memory.stop()
    await file.stop()
    bare.watcher.stop()
    await server.shutdown(grace: .zero)

    print(
        "workspace sends: \(count) per path (after \(warmUp) warm-up), one at a time, the paths taking turns "
            + "(\(format(elapsed, 1)) s); times in ms")
    let (bareAccepted50, bareConfirmed50) = bareTimes.p50
    let (bareAccepted99, bareConfirmed99) = bareTimes.p99
    print(
        "  bare POST round trip:   accepted p50 \(milliseconds(bareAccepted50)) p99 \(milliseconds(bareAccepted99)); "
            + "raw stream has the overlay p50 \(milliseconds(bareConfirmed50)) p99 \(milliseconds(bareConfirmed99))")
    for (label, times) in [("outbox in memory", memoryTimes), ("outbox on disk  ", fileTimes)] {
        let (accepted50, confirmed50) = times.p50
        let (accepted99, confirmed99) = times.p99
        print(
            "  client, \(label): accepted p50 \(milliseconds(accepted50)) p99 \(milliseconds(accepted99)); "
                + "confirmed p50 \(milliseconds(confirmed50)) p99 \(milliseconds(confirmed99))")
        print(
            "    accepted p50 ratio = \(format(accepted50 / bareAccepted50)) x (goal <= 3), "
                + "p99 ratio \(format(accepted99 / bareAccepted99)) x; "
                + "confirmed p50 ratio = \(format(confirmed50 / bareConfirmed50)) x, "
                + "p99 ratio \(format(confirmed99 / bareConfirmed99)) x (against the bare overlay)")
    }
}

// MARK: Events fan-out

private struct FanOut: Sendable {
    var target: String?
    var arrivals = 0
    var lastArrival: ContinuousClock.Instant?
    var ready = 0
    var endedRuns = 0
}

@MainActor
private func benchmarkWorkspaceFanOut(rounds: Int, followers many: Int) async throws {
    let server = try startWorkspaceServer()
    let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42")
    let desktop = WorkspaceDesktopClient(baseURL: server.baseURL, http: DefaultHTTPClient.make(), tokens: benchTokens())
    let tally = Watched(FanOut())
    var followers: [Task<Void, Never>] = []

    func follow(_ index: Int) {
        let events = WorkspaceEventsClient(
            chat: chat, baseURL: server.baseURL, http: DefaultHTTPClient.make(), tokens: benchTokens(),
            clock: ContinuousClock(), random: SeededRandomSource(seed: UInt64(index + 1)))
        followers.append(
            Task.detached {
                var first = true
                var counted: String?
                for await update in events.updates() {
                    guard case .event(let event, _) = update else {
                        if debugWorkspace { print("  follower \(index): \(update)") }
                        continue
                    }
                    let now = workspaceClock.now
                    if first {
                        first = false
                        tally.update { $0.ready += 1 }
                    }
                    switch event {
                    case .overlay(let overlay):
                        guard let target = tally.read({ $0.target }), target != counted,
                            overlay.blocks.contains(where: { $0.operationId == target })
                        else { continue }
                        counted = target
                        tally.update {
                            $0.arrivals += 1
                            $0.lastArrival = now
                        }
                    case .overlayDelta(let delta):  // a delta the client could not apply carries it too
                        guard let target = tally.read({ $0.target }), target != counted,
                            delta.blocks.contains(where: { $0.operationId == target })
                        else { continue }
                        counted = target
                        tally.update {
                            $0.arrivals += 1
                            $0.lastArrival = now
                        }
                    case .run(_, let state) where index == 0 && state != .queued && state != .started:
                        tally.update { $0.endedRuns += 1 }
                    default: break
                    }
                }
            })
    }

    var sent = 0
    func measure(followers count: Int) async throws -> [Double] {
        guard await tally.wait(until: { $0.ready >= count }) else {
            throw BenchmarkFailure("fan-out: only \(tally.read { $0.ready }) of \(count) followers connected")
        }
        var times: [Double] = []
        for _ in 0..<rounds {
            sent += 1
            let operationId = "fan-\(sent)"
            tally.update {
                $0.target = operationId
                $0.arrivals = 0
                $0.lastArrival = nil
            }
            let submission = WorkspaceSubmission(
                chat: chat, operationId: operationId, mutationId: "fan-m-\(sent)", mode: .send,
                text: "Fan-out \(sent): summarise the build log.")
            let start = workspaceClock.now
            _ = try await desktop.codexChatSubmit(submission)
            if debugWorkspace {
                print("  fan-out submit \(sent) answered after \(start.duration(to: workspaceClock.now))")
            }
            guard await tally.wait(until: { $0.arrivals >= count }), let last = tally.read({ $0.lastArrival }) else {
                throw BenchmarkFailure("fan-out: \(tally.read { $0.arrivals }) of \(count) followers had the overlay")
            }
            times.append(seconds(start.duration(to: last)))
            let ended = sent
            guard await tally.wait(until: { $0.endedRuns >= ended }) else {
                throw BenchmarkFailure("fan-out: the run never ended")
            }
        }
        return times.sorted()
    }

    follow(0)
    let one = try await measure(followers: 1)
    for index in 1..<many { follow(index) }
    let hundred = try await measure(followers: many)
    for task in followers { task.cancel() }
    await server.shutdown(grace: .zero)

    let oneMedian = percentile(one, 0.5)
    let hundredMedian = percentile(hundred, 0.5)
    print(
        "workspace events fan-out (\(rounds) rounds, submit call → the overlay at the last follower), ms: "
            + "1 follower min \(milliseconds(one[0])) median \(milliseconds(oneMedian)); "
            + "\(many) followers min \(milliseconds(hundred[0])) median \(milliseconds(hundredMedian)); "
            + "ratio \(many)/1: min \(format(hundred[0] / one[0])) x, median \(format(hundredMedian / oneMedian)) x")
}

// MARK: Entry

/// `workspace`: both parts. `SYBIL_BENCH_SENDS` changes the 1,000 sends per path.
@MainActor
func benchmarkWorkspace(repetitions: Int) async {
    let count = Int(ProcessInfo.processInfo.environment["SYBIL_BENCH_SENDS"] ?? "") ?? scaled(1_000)
    do {
        try await benchmarkWorkspaceSends(count: count, warmUp: min(20, count))
        try await benchmarkWorkspaceFanOut(rounds: max(scaled(3), repetitions), followers: scaled(100, atLeast: 2))
    } catch {
        caseFailed("workspace: failed: \(error)")
    }
}
