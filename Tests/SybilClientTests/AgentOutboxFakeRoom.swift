import SybilClient
import SybilCore
import SybilWire
import Testing

/// The Agent room's submit route, as the server keeps it: a message once per request id (the
/// same body again answers the same receipt; another body is a 409), each with the next
/// cursor. Answers are scripted per call; every other route of the seam fails the test.
final class AgentOutboxFakeRoom: AgentRoomAPI {
    /// How the next submission is answered.
    enum Answer: Sendable {
        /// Stores it (once per request id) and answers its receipt.
        case store
        /// Stores it, then the answer is lost in transit.
        case storeThenLoseAnswer
        /// Stores it, runs `effect` (the phone dies), then the answer is lost.
        case storeThen(@Sendable () -> Void)
        /// Runs `effect` (the phone dies) before the request reaches the server.
        case dieBeforeArrival(@Sendable () -> Void)
        /// Does not store it; fails with `error`.
        case fail(AgentRoomError)
        /// Stores it and answers a receipt changed by `edit`.
        case storeAndAnswer(@Sendable (AgentRoomReceipt) -> AgentRoomReceipt)
        /// Waits until ``release()`` (then stores and answers) or until the caller is cancelled.
        case hang
        /// Stores it, then waits like ``hang``.
        case storeThenHang
    }

    private struct State {
        var answers: [Answer] = []
        var calls: [AgentRoomSubmission] = []
        var messages: [AgentRoomMessage] = []
        var bodies: [String: AgentRoomSubmission] = [:]
        var hanging: [CheckedContinuation<Void, Never>] = []
        var releases = 0
    }

    private let state = Locked(State())
    /// Runs at the start of every submission, before anything else (tests look at the disk).
    let onSubmit: @Sendable (AgentRoomSubmission) -> Void

    init(onSubmit: @escaping @Sendable (AgentRoomSubmission) -> Void = { _ in }) {
        self.onSubmit = onSubmit
    }

    /// Answers for the next calls, in order; `.store` once they run out.
    func script(_ answers: Answer...) { state.withLock { $0.answers += answers } }

    /// Every submission received, in order (retries included).
    var calls: [AgentRoomSubmission] { state.withLock { $0.calls } }
    /// The messages stored, in room order (the canonical echoes).
    var messages: [AgentRoomMessage] { state.withLock { $0.messages } }
    /// Submissions waiting in ``Answer/hang``.
    var hangingCount: Int { state.withLock { $0.hanging.count } }

    /// Lets the oldest hanging submission go on.
    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.hanging.isEmpty ? nil : state.hanging.removeFirst()
        }
        waiter?.resume()
    }

    /// The canonical message stored for `requestId`.
    func echo(of requestId: String) -> AgentRoomMessage? {
        messages.first { $0.requestId == requestId }
    }

    func submit(_ submission: AgentRoomSubmission) async throws(AgentRoomError) -> AgentRoomReceipt {
        onSubmit(submission)
        let answer = state.withLock { state -> Answer in
            state.calls.append(submission)
            return state.answers.isEmpty ? .store : state.answers.removeFirst()
        }
        switch answer {
        case .store:
            return try store(submission)
        case .storeThenLoseAnswer:
            _ = try store(submission)
            throw .transport("the connection was reset")
        case .storeThen(let effect):
            _ = try store(submission)
            effect()
            throw .transport("the connection was reset")
        case .dieBeforeArrival(let effect):
            effect()
            throw .transport("the network is down")
        case .fail(let error):
            throw error
        case .storeAndAnswer(let edit):
            return edit(try store(submission))
        case .hang:
            try await hang()
            return try store(submission)
        case .storeThenHang:
            let receipt = try store(submission)
            try await hang()
            return receipt
        }
    }

    private func hang() async throws(AgentRoomError) {
        let cancelled = Locked(false)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if Task.isCancelled { return true }
                    state.hanging.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
            let all = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                defer { state.hanging.removeAll() }
                return state.hanging
            }
            for waiter in all { waiter.resume() }
        }
        if cancelled.withLock({ $0 }) { throw .transport("cancelled") }
    }

    /// Stores like the server: once per request id; the same id with another body is a 409.
    private func store(_ submission: AgentRoomSubmission) throws(AgentRoomError) -> AgentRoomReceipt {
        let stored = state.withLock { state -> Result<AgentRoomMessage, AgentRoomError> in
            if let earlier = state.bodies[submission.requestId] {
                guard earlier == submission else {
                    return .failure(
                        .rejected(
                            status: 409,
                            error: APIErrorBody(
                                message: "Request \(submission.requestId) was already used for a different message.",
                                code: "request_conflict"),
                            retryAfterSeconds: nil))
                }
                return .success(state.messages.first { $0.requestId == submission.requestId }!)
            }
            state.bodies[submission.requestId] = submission
            let number = state.messages.count + 1
            let message = AgentRoomMessage(
                messageId: "msg-\(number)", cursor: AgentCursor("c-\(String(number + 1_000_000).dropFirst())")!,
                requestId: submission.requestId, role: .user, visibility: .public, text: submission.text,
                createdAt: submission.createdAt,
                attachments: submission.attachments.map { agentAttachment($0) })
            state.messages.append(message)
            return .success(message)
        }
        let message = try stored.get()
        return AgentRoomReceipt(
            requestId: submission.requestId, messageId: message.messageId, cursor: message.cursor,
            attachments: message.attachments.map(\.uploadId))
    }

    // MARK: Not expected

    private func unexpected(_ route: String) -> AgentRoomError {
        Issue.record("unexpected call to \(route)")
        return .transport("unexpected call to \(route)")
    }

    func descriptor() async throws(AgentRoomError) -> AgentRoomDescriptor { throw unexpected("descriptor") }

    func messages(after: AgentCursor?, before: AgentCursor?, limit: Int) async throws(AgentRoomError) -> AgentRoomPage {
        throw unexpected("messages")
    }

    func readState() async throws(AgentRoomError) -> AgentReadState { throw unexpected("readState") }

    func markRead(_ cursor: AgentCursor) async throws(AgentRoomError) -> AgentReadState {
        throw unexpected("markRead")
    }

    func upload(_ file: AgentUploadFile) async throws(AgentRoomError) -> AgentAttachment { throw unexpected("upload") }

    func original(of attachment: AgentAttachment) async throws(AgentRoomError) -> [UInt8] {
        throw unexpected("original")
    }
}

/// A descriptor for upload `id` (the test's files are all 42-byte text files).
func agentAttachment(_ id: String, fileName: String? = nil) -> AgentAttachment {
    AgentAttachment(
        uploadId: id, fileName: fileName ?? "\(id).txt", mimeType: "text/plain", size: 42,
        sha256: String(repeating: "ab", count: 32))
}

/// An error answer with `status`, `code` and the server's `message`.
func roomRejection(
    _ status: Int, _ code: String, _ message: String, retryAfter: Int? = nil, details: JSONObject? = nil
) -> AgentRoomError {
    .rejected(
        status: status, error: APIErrorBody(message: message, code: code, details: details),
        retryAfterSeconds: retryAfter)
}
