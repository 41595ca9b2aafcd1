import Foundation
import Observation
import SybilHTTP

/// Wakes a scale-to-zero backend before the user sends (SPEC §5.1): returning to the
/// foreground, switching tabs and entering a chat each trigger one health check (10 s
/// timeout), single-flight across concurrent triggers; after a success the backend counts as
/// warm for 60 s. The check is a request the server serves (``WarmUpHealthCheck``): the open
/// `GET /healthz` of a Sybil server, else `GET /v1/models` with the key. State changes happen
/// on the main actor.
@MainActor
@Observable
public final class WarmUpManager<C: Clock> where C.Duration == Duration {
    /// What triggered a warm-up.
    public enum Trigger: Sendable, Hashable, CaseIterable {
        /// The app came back to the foreground.
        case returnedToForeground
        /// The user switched tabs.
        case switchedTab
        /// The user entered a chat.
        case enteredChat
    }

    /// Where the backend stands.
    public enum State: Sendable, Hashable {
        /// Not known to be up.
        case cold
        /// A health check is running.
        case warming
        /// The last health check succeeded.
        case warm
        /// The last health check failed (the next trigger tries again).
        case failed(String)
    }

    /// How long a success counts.
    public static var warmDuration: Duration { .seconds(60) }
    /// How long a health check may take.
    public static var healthCheckTimeout: Duration { .seconds(10) }

    /// The current state.
    public private(set) var state = State.cold
    /// Health checks started (single-flight makes this smaller than the trigger count).
    public private(set) var healthChecks = 0

    @ObservationIgnored private let http: any HTTPClient
    @ObservationIgnored private let baseURL: URL
    @ObservationIgnored private let check: WarmUpHealthCheck
    @ObservationIgnored private let clock: C
    @ObservationIgnored private var warmUntil: C.Instant?
    @ObservationIgnored private var inFlight: Task<Bool, Never>?
    @ObservationIgnored private var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
    @ObservationIgnored private var waiterCount = 0

    /// A manager sending `check` (by default `GET baseURL/healthz`) through `http`.
    public init(http: any HTTPClient, baseURL: URL, clock: C, check: WarmUpHealthCheck = .healthz) {
        self.http = http
        self.baseURL = baseURL
        self.clock = clock
        self.check = check
    }

    /// Whether a health check succeeded less than 60 s ago.
    public var isWarm: Bool {
        guard let warmUntil else { return false }
        return clock.now < warmUntil
    }

    /// Starts a health check unless the backend is warm or one is running.
    public func trigger(_ trigger: Trigger) {
        _ = warmUp()
    }

    /// Waits until the backend is warm, at most `limit`; returns whether it is. The wait ends at
    /// `limit` even while the health check goes on (it may take up to 10 s).
    public func waitUntilWarm(atMost limit: Duration) async -> Bool {
        if isWarm { return true }
        _ = warmUp()
        waiterCount += 1
        let id = waiterCount
        let clock = clock
        let timeout = Task { [weak self] in
            try? await clock.sleep(for: limit)
            self?.resumeWaiter(id, warm: false)
        }
        defer { timeout.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if case .warming = state {
                    waiters[id] = continuation
                } else {
                    continuation.resume(returning: isWarm)
                }
            }
        } onCancel: {
            // Only a hop to the main actor from the cancellation handler: it ends at once.
            Task { @MainActor [weak self] in self?.resumeWaiter(id, warm: false) }
        }
    }

    private func resumeWaiter(_ id: Int, warm: Bool) {
        waiters.removeValue(forKey: id)?.resume(returning: warm)
    }

    /// The running health check, or a new one.
    private func warmUp() -> Task<Bool, Never> {
        if let inFlight { return inFlight }
        // Already finished when returned: nothing runs that needs an owner.
        if isWarm { return Task { true } }
        state = .warming
        healthChecks += 1
        let http = http
        let clock = clock
        let request = HTTPRequest(
            url: APIEndpoint.url(base: baseURL, path: check.path), headers: check.headers,
            timeout: Self.healthCheckTimeout)
        let task = Task { [weak self] in
            let outcome = await withTaskGroup(of: String?.self) { group in
                group.addTask {
                    do {
                        let response = try await http.send(request)
                        return response.head.status == 200 ? nil : "health check answered \(response.head.status)"
                    } catch {
                        return "health check failed: \(error)"
                    }
                }
                group.addTask {
                    try? await clock.sleep(for: Self.healthCheckTimeout)
                    return "health check timed out after 10 s"
                }
                defer { group.cancelAll() }
                return await group.next() ?? "health check did not run"
            }
            self?.finish(failure: outcome)
            return outcome == nil
        }
        inFlight = task
        return task
    }

    private func finish(failure: String?) {
        inFlight = nil
        if let failure {
            state = .failed(failure)
        } else {
            warmUntil = clock.now.advanced(by: Self.warmDuration)
            state = .warm
        }
        let waiting = waiters
        waiters = [:]
        for continuation in waiting.values { continuation.resume(returning: failure == nil) }
    }
}

/// The request a ``WarmUpManager`` wakes its backend with: a path under the base URL and the
/// header fields it carries. Only a request the server serves: a plain OpenAI-compatible
/// server answers `/healthz` with 404.
public struct WarmUpHealthCheck: Sendable, Hashable {
    /// The path under the base URL (`healthz`, `v1/models`).
    public var path: String
    /// The header fields sent (the key, for a route that needs one).
    public var headers: HTTPHeaders

    /// A check of `path` carrying `headers`.
    public init(path: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.path = path
        self.headers = headers
    }

    /// The open `GET /healthz` of a Sybil server.
    public static let healthz = WarmUpHealthCheck(path: "healthz")

    /// `GET /v1/models`, which every OpenAI-compatible server serves; OpenAI requires the key
    /// there, so `key` goes as `Authorization: Bearer`, with the profile's `headers`. A server
    /// whose routes are under another prefix (`apiPrefix`: `/v1` or `/`) has it there.
    public static func models(key: String?, headers: HTTPHeaders = HTTPHeaders(), apiPrefix: APIPrefix = .v1)
        -> WarmUpHealthCheck
    {
        var fields = headers
        if let key { fields.set("Authorization", "Bearer \(key)") }
        return WarmUpHealthCheck(path: apiPrefix.route("models"), headers: fields)
    }
}

/// What a send waits for before its request leaves.
public protocol SendGate: Sendable {
    /// Returns when the send may go.
    func open() async
}

/// The send gate of SPEC §5.1: when the backend is not warm, a send waits at most about
/// 1.5 s for the warm-up, then goes anyway.
public struct WarmUpSendGate<C: Clock>: SendGate where C.Duration == Duration {
    /// The longest a send waits.
    public static var maximumWait: Duration { .milliseconds(1_500) }
    private let manager: WarmUpManager<C>

    /// A gate over `manager`.
    public init(manager: WarmUpManager<C>) {
        self.manager = manager
    }

    public func open() async {
        _ = await manager.waitUntilWarm(atMost: Self.maximumWait)
    }
}
