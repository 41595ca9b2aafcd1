import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilTesting
import SybilWire
import Testing

/// A gate that blocked work waits at until the test lets it through: one permit per
/// ``release(_:)``; a waiting task that is cancelled leaves with `CancellationError`.
final class TestGate: Sendable {
    private struct State {
        var permits = 0
        var waiters: [(ticket: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextTicket = 0
        var cancelled = 0
    }

    private let state = Locked(State())

    /// Tasks waiting now.
    var waiting: Int { state.withLock { $0.waiters.count } }
    /// Waits that ended by cancellation.
    var cancelled: Int { state.withLock { $0.cancelled } }

    /// Waits for a permit.
    func wait() async throws {
        let ticket = state.withLock { state in
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Checked under the lock: a cancellation that came before this wait was
                // registered found no waiter to resume, so it must be seen here (else the
                // wait never ends and holds the whole test run).
                let outcome: Result<Bool, CancellationError> = state.withLock { state in
                    if Task.isCancelled {
                        state.cancelled += 1
                        return .failure(CancellationError())
                    }
                    if state.permits > 0 {
                        state.permits -= 1
                        return .success(true)
                    }
                    state.waiters.append((ticket, continuation))
                    return .success(false)
                }
                switch outcome {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(true): continuation.resume()
                case .success(false): break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                state.cancelled += 1
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Waits for a permit and does not leave when cancelled (a transfer that ignores
    /// cancellation and finishes anyway).
    func waitIgnoringCancellation() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Task {
                while true {
                    do {
                        try await wait()
                        continuation.resume()
                        return
                    } catch {
                        continue
                    }
                }
            }
        }
    }

    /// Lets `count` waits through (now or when they come).
    func release(_ count: Int = 1) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.permits += count
            var ready: [CheckedContinuation<Void, any Error>] = []
            while state.permits > 0, !state.waiters.isEmpty {
                state.permits -= 1
                ready.append(state.waiters.removeFirst().continuation)
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}

/// Records which reads and uploads run, in order, and how many ran at once.
final class ActivityProbe: Sendable {
    private struct State {
        var events: [String] = []
        var running = 0
        var maxRunning = 0
    }

    private let state = Locked(State())

    var events: [String] { state.withLock { $0.events } }
    var maxRunning: Int { state.withLock { $0.maxRunning } }
    var running: Int { state.withLock { $0.running } }

    func begin(_ name: String) {
        state.withLock {
            $0.events.append("begin " + name)
            $0.running += 1
            $0.maxRunning = max($0.maxRunning, $0.running)
        }
    }

    func end(_ name: String) {
        state.withLock {
            $0.events.append("end " + name)
            $0.running -= 1
        }
    }
}

/// The Agent room seam for attachment tests: uploads and originals only (any other call is
/// recorded as a test failure and refused). Uploads answer the correct descriptor unless a
/// failure is scripted for the id; downloads return the registered bytes. Either can be held at
/// a gate.
final class FakeAgentRoomAPI: AgentRoomAPI {
    private struct State {
        var uploads: [AgentUploadFile] = []
        var failures: [String: AgentRoomError] = [:]
        var answers: [String: AgentAttachment] = [:]
        var originals: [String: [UInt8]] = [:]
        var downloads: [String] = []
        var downloadsRunning = 0
        var maxDownloadsRunning = 0
    }

    private let state = Locked(State())
    let probe: ActivityProbe
    let uploadGate: TestGate?
    let downloadGate: TestGate?
    let downloadsIgnoreCancellation: Bool

    init(
        probe: ActivityProbe = ActivityProbe(), uploadGate: TestGate? = nil, downloadGate: TestGate? = nil,
        downloadsIgnoreCancellation: Bool = false
    ) {
        self.probe = probe
        self.uploadGate = uploadGate
        self.downloadGate = downloadGate
        self.downloadsIgnoreCancellation = downloadsIgnoreCancellation
    }

    /// Upload ids in the order they were sent (retries included).
    var uploadedIds: [String] { state.withLock { $0.uploads.map(\.uploadId) } }
    /// The uploads themselves.
    var uploads: [AgentUploadFile] { state.withLock { $0.uploads } }
    /// Upload ids of the originals asked for, in order.
    var downloads: [String] { state.withLock { $0.downloads } }
    /// Downloads running now.
    var downloadsRunning: Int { state.withLock { $0.downloadsRunning } }
    /// The most downloads that ran at once.
    var maxDownloadsRunning: Int { state.withLock { $0.maxDownloadsRunning } }

    /// The next upload of `uploadId` fails with `error`.
    func failNextUpload(of uploadId: String, with error: AgentRoomError) {
        state.withLock { $0.failures[uploadId] = error }
    }

    /// The next upload of `uploadId` answers `answer` whatever was sent.
    func answerNextUpload(of uploadId: String, with answer: AgentAttachment) {
        state.withLock { $0.answers[uploadId] = answer }
    }

    /// Registers an original for downloads.
    func store(_ bytes: [UInt8], for uploadId: String) {
        state.withLock { $0.originals[uploadId] = bytes }
    }

    static func descriptor(for file: AgentUploadFile) -> AgentAttachment {
        AgentAttachment(
            uploadId: file.uploadId, fileName: file.fileName, mimeType: file.mimeType, size: Int64(file.bytes.count),
            sha256: SHA256Digest.hex(file.bytes), workspacePath: "uploads/" + file.fileName)
    }

    func upload(_ file: AgentUploadFile) async throws(AgentRoomError) -> AgentAttachment {
        state.withLock { $0.uploads.append(file) }
        probe.begin("upload " + file.uploadId)
        defer { probe.end("upload " + file.uploadId) }
        if let uploadGate {
            do { try await uploadGate.wait() } catch { throw .transport("cancelled") }
        }
        let (failure, answer) = state.withLock {
            ($0.failures.removeValue(forKey: file.uploadId), $0.answers.removeValue(forKey: file.uploadId))
        }
        if let failure { throw failure }
        return answer ?? Self.descriptor(for: file)
    }

    func original(of attachment: AgentAttachment) async throws(AgentRoomError) -> [UInt8] {
        state.withLock {
            $0.downloads.append(attachment.uploadId)
            $0.downloadsRunning += 1
            $0.maxDownloadsRunning = max($0.maxDownloadsRunning, $0.downloadsRunning)
        }
        defer { state.withLock { $0.downloadsRunning -= 1 } }
        if let downloadGate {
            if downloadsIgnoreCancellation {
                await downloadGate.waitIgnoringCancellation()
            } else {
                do { try await downloadGate.wait() } catch { throw .transport("cancelled") }
            }
        }
        guard let bytes = state.withLock({ $0.originals[attachment.uploadId] }) else {
            throw .rejected(
                status: 404, error: APIErrorBody(message: "No such upload.", code: "not_found"), retryAfterSeconds: nil)
        }
        return bytes
    }

    private func unexpected(_ call: String) -> AgentRoomError {
        Issue.record("unexpected Agent room call: \(call)")
        return .transport("unexpected call \(call)")
    }

    func descriptor() async throws(AgentRoomError) -> AgentRoomDescriptor { throw unexpected("descriptor") }
    func messages(after: AgentCursor?, before: AgentCursor?, limit: Int) async throws(AgentRoomError) -> AgentRoomPage {
        throw unexpected("messages")
    }
    func submit(_ submission: AgentRoomSubmission) async throws(AgentRoomError) -> AgentRoomReceipt {
        throw unexpected("submit")
    }
    func readState() async throws(AgentRoomError) -> AgentReadState { throw unexpected("readState") }
    func markRead(_ cursor: AgentCursor) async throws(AgentRoomError) -> AgentReadState { throw unexpected("markRead") }
}

/// A storage that passes through to another until told to fail (a full disk, a broken folder).
final class SwitchableAttachmentStorage: AgentAttachmentStorage {
    private let base: any AgentAttachmentStorage
    private let failing = Locked(false)

    init(_ base: any AgentAttachmentStorage) { self.base = base }

    /// Every call fails while true.
    func setFailing(_ value: Bool) { failing.withLock { $0 = value } }

    private func check(_ operation: String) throws {
        if failing.withLock({ $0 }) { throw StorageFailure(operation: operation) }
    }

    struct StorageFailure: Error, CustomStringConvertible {
        var operation: String
        var description: String { "cannot \(operation): No space left on device" }
    }

    func readManifest() async throws -> [UInt8]? {
        try check("read the manifest")
        return try await base.readManifest()
    }
    func writeManifest(_ bytes: [UInt8]) async throws {
        try check("write the manifest")
        try await base.writeManifest(bytes)
    }
    func keepAside(_ bytes: [UInt8]) async throws {
        try check("keep the manifest aside")
        try await base.keepAside(bytes)
    }
    func stage(_ bytes: [UInt8], uploadId: String) async throws {
        try check("stage")
        try await base.stage(bytes, uploadId: uploadId)
    }
    func readStaged(uploadId: String) async throws -> [UInt8]? {
        try check("read a staged file")
        return try await base.readStaged(uploadId: uploadId)
    }
    func removeStaged(uploadId: String) async throws {
        try check("remove a staged file")
        try await base.removeStaged(uploadId: uploadId)
    }
    func stagedUploadIds() async throws -> [String] {
        try check("list staged files")
        return try await base.stagedUploadIds()
    }
    func removeAll() async throws {
        try check("remove the draft")
        try await base.removeAll()
    }
}

enum AttachmentFixtures {
    static let baseURL = URL(string: "http://127.0.0.1:8799/api")!

    /// A v1 capability with the given limits (the v1 ceilings by default).
    static func capability(_ limits: AgentAttachmentLimits = .v1) -> AgentRoomDescriptor.Attachments {
        AgentRoomDescriptor.Attachments(limits: limits, quota: AgentQuota(usedBytes: 0, limitBytes: 1 << 30))
    }

    /// A fresh temporary directory, removed after `body`.
    static func withDirectory<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (String) async throws -> T
    ) async throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-agent-attachments-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await body(path)
    }

    /// The first 33 bytes of a PNG of `width` × `height` (signature and IHDR), padded with zeros
    /// to `size` bytes: what header validation reads.
    static func png(width: Int, height: Int, size: Int = 64) -> [UInt8] {
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        let header: [UInt8] =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + bigEndian(width)
            + bigEndian(height) + [8, 2, 0, 0, 0, 0, 0, 0, 0]
        return header + [UInt8](repeating: 0, count: max(0, size - header.count))
    }

    /// A source over `bytes` that records its read in `probe` and waits at `gate` when given.
    static func source(
        _ name: String, _ bytes: [UInt8], kind: AgentAttachmentSource.Kind = .file, mimeType: String? = nil,
        probe: ActivityProbe? = nil, gate: TestGate? = nil
    ) -> AgentAttachmentSource {
        AgentAttachmentSource(kind: kind, fileName: name, mimeType: mimeType, byteCount: Int64(bytes.count)) {
            maxBytes in
            probe?.begin("read " + name)
            defer { probe?.end("read " + name) }
            try await gate?.wait()
            return Array(bytes.prefix(maxBytes + 1))
        }
    }
}

/// A task's outcome within ``ConditionWait``'s limit, so a broken rule fails the test instead
/// of hanging it; a task still running then is cancelled and `nil` returned.
enum TaskOutcome {
    @MainActor
    static func of<T: Sendable>(_ task: Task<T, any Error>) async -> Result<T, any Error>? {
        let box = Locked<Result<T, any Error>?>(nil)
        Task {
            let result = await task.result
            box.withLock { $0 = result }
        }
        guard await ConditionWait.until({ box.withLock { $0 != nil } }) else {
            task.cancel()
            return nil
        }
        return box.withLock { $0 }
    }

    /// The task's value, or `nil` when it failed or did not finish in time.
    @MainActor
    static func value<T: Sendable>(of task: Task<T, any Error>) async -> T? {
        try? await of(task)?.get()
    }

    /// The download error the task ended with, or `nil`.
    @MainActor
    static func downloadError<T: Sendable>(of task: Task<T, any Error>) async -> AgentDownloadError? {
        guard case .failure(let error)? = await of(task) else { return nil }
        return error as? AgentDownloadError
    }
}
