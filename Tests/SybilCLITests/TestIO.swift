import Foundation
import SybilCLI
import SybilCore
import Testing

/// An in-memory `CommandIO`: files and standard input are byte arrays, output is captured.
final class TestIO: Sendable {
    private struct State {
        var stdout = ""
        var stderr = ""
        /// Tests waiting for text on standard output (`false`) or standard error (`true`).
        var waiters: [(id: Int, onError: Bool, text: String, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextWaiter = 0

        /// Appends `text` to one stream; returns the waiters it satisfies.
        mutating func append(_ text: String, onError: Bool) -> [CheckedContinuation<Bool, Never>] {
            if onError { stderr += text } else { stdout += text }
            let isMet = {
                (waiter: (id: Int, onError: Bool, text: String, continuation: CheckedContinuation<Bool, Never>)) in
                waiter.onError == onError && (onError ? self.stderr : self.stdout).contains(waiter.text)
            }
            let ready = waiters.filter(isMet).map(\.continuation)
            waiters.removeAll(where: isMet)
            return ready
        }
    }

    private let state = Locked(State())
    let files: [String: [UInt8]]
    let stdin: [UInt8]
    /// Size of the chunks handed to the command, like a pipe delivering partial reads.
    let readSize: Int

    let environment: [String: String]
    /// The terminal standard output pretends to be (columns, rows), or `nil` for a pipe.
    let terminal: (columns: Int, rows: Int)?
    private let termination = Locked<(requested: Bool, next: Int, waiters: [Int: CheckedContinuation<Void, Never>])>(
        (false, 0, [:]))

    init(
        files: [String: [UInt8]] = [:], stdin: [UInt8] = [], readSize: Int = 65_536,
        environment: [String: String] = [:],
        terminal: (columns: Int, rows: Int)? = nil
    ) {
        self.terminal = terminal
        self.files = files
        self.stdin = stdin
        self.readSize = readSize
        self.environment = environment
    }

    /// Asks a long-running command (`sybil serve`) to stop, like SIGTERM.
    func terminate() {
        let waiters = termination.withLock { state in
            state.requested = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Like `TerminationSignal.wait()`: returns once terminated, or when the waiting task is
    /// cancelled.
    private func waitForTermination() async {
        let id = termination.withLock { state in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = termination.withLock { state in
                    let resumeNow = state.requested || Task.isCancelled
                    if !resumeNow { state.waiters[id] = continuation }
                    return resumeNow
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            termination.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    var stdout: String { state.withLock { $0.stdout } }
    var stderr: String { state.withLock { $0.stderr } }

    /// Returns once standard error contains `text`; records an issue after 30 s without it.
    func waitForStderr(containing text: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        await wait(for: text, onError: true, sourceLocation: sourceLocation)
    }

    /// Returns once standard output contains `text` (the command's own signal that it got
    /// there); records an issue after 30 s without it.
    func waitForOutput(containing text: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        await wait(for: text, onError: false, sourceLocation: sourceLocation)
    }

    private func wait(for text: String, onError: Bool, sourceLocation: SourceLocation) async {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let deadline = Task { [self] in
            try? await ContinuousClock().sleep(for: .seconds(30))
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
        let appeared = await withCheckedContinuation { continuation in
            let present = state.withLock { state in
                if (onError ? state.stderr : state.stdout).contains(text) { return true }
                state.waiters.append((id, onError, text, continuation))
                return false
            }
            if present { continuation.resume(returning: true) }
        }
        deadline.cancel()
        if !appeared {
            Issue.record("\(text) never appeared; stdout: \(stdout) stderr: \(stderr)", sourceLocation: sourceLocation)
        }
    }

    var io: CommandIO {
        CommandIO(
            readChunks: { [self] path, body in
                let bytes: [UInt8]
                if let path {
                    guard let file = files[path] else {
                        throw CommandIO.InputError(source: "'\(path)'", reason: "no such file")
                    }
                    bytes = file
                } else {
                    bytes = stdin
                }
                var start = 0
                while start < bytes.count {
                    let end = min(start + readSize, bytes.count)
                    body(Array(bytes[start..<end]))
                    start = end
                }
            },
            writeOutput: { [self] text in
                for waiter in state.withLock({ $0.append(text, onError: false) }) { waiter.resume(returning: true) }
            },
            writeError: { [self] text in
                for waiter in state.withLock({ $0.append(text, onError: true) }) { waiter.resume(returning: true) }
            },
            environment: environment,
            waitForTermination: { [self] in await waitForTermination() },
            outputIsTerminal: terminal != nil,
            terminalSize: { [terminal] in terminal })
    }

    /// Runs `sybil` with `arguments` and returns its exit status.
    func run(_ arguments: String...) async -> Int32 {
        await run(arguments)
    }

    /// Runs `sybil` with `arguments` and returns its exit status.
    func run(_ arguments: [String]) async -> Int32 {
        await SybilCommandLine.run(arguments, io: io)
    }
}

/// Reads a golden file stored next to the tests.
func golden(_ name: String) throws -> String {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name)")
    return try String(contentsOf: url, encoding: .utf8)
}
