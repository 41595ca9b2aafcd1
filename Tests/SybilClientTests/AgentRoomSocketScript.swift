import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilWire
import Testing

/// A WebSocket the test plays the server of: it sends frames and closes, and sees what the
/// client closed with.
final class ScriptedAgentSocket: WebSocketConnection {
    let incoming: AsyncThrowingStream<WebSocketIncoming, any Error>
    let url: URL
    let headers: HTTPHeaders
    private let continuation: AsyncThrowingStream<WebSocketIncoming, any Error>.Continuation
    let consumerExecutor: (any TaskExecutor)?
    private let state = Locked<(closes: [UInt16], waiters: [CheckedContinuation<UInt16, Never>])>(([], []))
    /// For each close of the client's: whether the task that closed preferred
    /// ``consumerExecutor``.
    private let closedOnExecutor = Locked<[Bool]>([])

    init(url: URL, headers: HTTPHeaders, executor: (any TaskExecutor)? = nil) {
        self.url = url
        self.headers = headers
        consumerExecutor = executor
        (incoming, continuation) = AsyncThrowingStream.makeStream()
    }

    /// For each close of the client's, in order: whether it came from a task running under
    /// `withTaskExecutorPreference(consumerExecutor)`.
    var closesOnExecutor: [Bool] { closedOnExecutor.withLock { $0 } }

    /// The `after` query item of the URL the client connected to.
    var after: String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "after" }?.value
    }

    // The server's side.

    func send(_ event: AgentStreamEvent) { continuation.yield(.text(JSONWriter().string(from: event.jsonValue))) }
    func send(frame text: String) { continuation.yield(.text(text)) }
    func sendBinary(_ bytes: [UInt8]) { continuation.yield(.binary(bytes)) }

    func close(with code: UInt16, reason: String = "") {
        continuation.yield(.closed(code: code, reason: reason))
        continuation.finish()
    }

    func lose() { continuation.finish(throwing: WebSocketError.connectionLost("reset by peer")) }

    /// Returns the code of the client's first close.
    func clientClose() async -> UInt16 {
        await withCheckedContinuation { waiter in
            let code = state.withLock { state -> UInt16? in
                if let first = state.closes.first { return first }
                state.waiters.append(waiter)
                return nil
            }
            if let code { waiter.resume(returning: code) }
        }
    }

    var clientCloses: [UInt16] { state.withLock { $0.closes } }

    // The client's side.

    func send(text: String) throws {}
    func send(binary: [UInt8]) throws {}

    func close(code: UInt16, reason: String) {
        let preferred = withUnsafeCurrentTask { $0?.unownedTaskExecutor }
        let onExecutor = preferred != nil && preferred == consumerExecutor?.asUnownedTaskExecutor()
        closedOnExecutor.withLock { $0.append(onExecutor) }
        let waiters = state.withLock { state -> [CheckedContinuation<UInt16, Never>] in
            state.closes.append(code)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: code) }
        continuation.finish()
    }
}

/// Hands out scripted sockets in order; a connect can be scripted to fail first.
final class ScriptedAgentSockets: AgentRoomStreamConnector {
    private let state = Locked<
        (
            failures: [AgentRoomStreamConnectError], opened: [ScriptedAgentSocket], attempts: [(URL, HTTPHeaders)],
            waiters: [(index: Int, continuation: CheckedContinuation<ScriptedAgentSocket, Never>)]
        )
    >(([], [], [], []))

    /// The connections' ``ScriptedAgentSocket/consumerExecutor``.
    let executor: (any TaskExecutor)?

    /// Scripted sockets, each with `executor` as its consumer executor.
    init(executor: (any TaskExecutor)? = nil) {
        self.executor = executor
    }

    /// The next connects fail with `errors`, in order.
    func failNext(_ errors: AgentRoomStreamConnectError...) { state.withLock { $0.failures += errors } }

    /// Every connect attempt's URL and headers.
    var attempts: [(url: URL, headers: HTTPHeaders)] { state.withLock { $0.attempts.map { ($0.0, $0.1) } } }

    /// Connections opened so far.
    var opened: [ScriptedAgentSocket] { state.withLock { $0.opened } }

    /// Returns the `number`-th connection (1 is the first) once it is open.
    func connection(_ number: Int) async -> ScriptedAgentSocket {
        await withCheckedContinuation { waiter in
            let socket = state.withLock { state -> ScriptedAgentSocket? in
                if state.opened.count >= number { return state.opened[number - 1] }
                state.waiters.append((number, waiter))
                return nil
            }
            if let socket { waiter.resume(returning: socket) }
        }
    }

    func connect(to url: URL, headers: HTTPHeaders) async throws(AgentRoomStreamConnectError)
        -> any WebSocketConnection
    {
        typealias Ready = [(CheckedContinuation<ScriptedAgentSocket, Never>, ScriptedAgentSocket)]
        let outcome = state.withLock { state -> Result<(ScriptedAgentSocket, Ready), AgentRoomStreamConnectError> in
            state.attempts.append((url, headers))
            if !state.failures.isEmpty { return .failure(state.failures.removeFirst()) }
            let socket = ScriptedAgentSocket(url: url, headers: headers, executor: executor)
            state.opened.append(socket)
            let count = state.opened.count
            let ready = state.waiters.filter { $0.index <= count }
            state.waiters.removeAll { $0.index <= count }
            return .success((socket, ready.map { ($0.continuation, state.opened[$0.index - 1]) }))
        }
        switch outcome {
        case .failure(let error): throw error
        case .success(let (socket, ready)):
            for (waiter, opened) in ready { waiter.resume(returning: opened) }
            return socket
        }
    }
}

/// A task executor that runs its jobs one at a time on a dispatch queue.
final class QueueExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "agent-room-test-executor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A cursor shared between a test and the stream's replay closure.
final class RoomCursorBox: Sendable {
    private let cursor = Locked<AgentCursor?>(nil)

    var value: AgentCursor? {
        get { cursor.withLock { $0 } }
        set { cursor.withLock { $0 = newValue } }
    }
}
