import Foundation
import SybilCore

/// A profile's `key_command`: a command run through `/bin/sh -c` whose standard output,
/// trimmed, is a fresh key, as `gh auth token` or an `aws` credential helper print one. Its
/// standard error is passed through to the user; its output is bounded (``outputLimit``) and
/// its run time too (``timeout``, then it is killed).
public struct KeyCommand: Sendable, Hashable {
    /// The most bytes of standard output read: 64 KiB.
    public static let outputLimit = 64 * 1_024
    /// How long the command may run: 10 s.
    public static let timeout: Duration = .seconds(10)

    /// The command line, as written in `config.toml`.
    public var command: String
    /// The environment it runs with.
    public var environment: [String: String]
    /// How long it may run (``timeout`` unless a test shortens it).
    public var limit: Duration

    /// A command run with `environment`.
    public init(_ command: String, environment: [String: String], limit: Duration = KeyCommand.timeout) {
        self.command = command
        self.environment = environment
        self.limit = limit
    }

    /// Runs the command and returns its trimmed output: the key.
    public func run() async throws(KeyCommandError) -> String {
        let command = command
        let environment = environment
        let limit = limit
        let outcome: Result<String, KeyCommandError> = await withCheckedContinuation { continuation in
            // A thread of its own: the child is waited for with blocking reads.
            Thread.detachNewThread {
                continuation.resume(returning: Self.runBlocking(command, environment: environment, limit: limit))
            }
        }
        return try outcome.get()
    }

    /// Runs the command on the calling thread (at most ``timeout``): for a command line that
    /// needs its first key before it starts.
    public func runNow() -> Result<String, KeyCommandError> {
        Self.runBlocking(command, environment: environment, limit: limit)
    }

    private static func runBlocking(_ command: String, environment: [String: String], limit: Duration)
        -> Result<String, KeyCommandError>
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        // Standard error is inherited: the helper's own prompts and complaints reach the user.
        do {
            try process.run()
        } catch {
            return .failure(KeyCommandError(command: command, problem: "could not start (\(error))"))
        }
        // The limit is real time: the child runs in it. Reads wait with poll(2), so a helper
        // that leaves a grandchild holding the pipe open cannot hold this thread past it.
        let deadline = ContinuousClock.now.advanced(by: limit)  // live clock: a child process's run time
        var bytes: [UInt8] = []
        var overflowed = false
        var timedOut = false
        let descriptor = output.fileHandleForReading.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 4_096)
        reading: while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else {
                timedOut = true
                break
            }
            let milliseconds = Int32(
                clamping: remaining.components.seconds * 1_000 + remaining.components.attoseconds
                    / 1_000_000_000_000_000 + 1)
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break reading }
            if bytes.count + count > outputLimit {
                overflowed = true
                break
            }
            bytes.append(contentsOf: buffer[0..<count])
        }
        if timedOut || overflowed {
            // Killed, not waited for: a grandchild holding the pipe could keep the wait going.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        } else {
            process.waitUntilExit()
        }
        if timedOut {
            return .failure(KeyCommandError(command: command, problem: "did not finish within \(limit)"))
        }
        if overflowed {
            return .failure(KeyCommandError(command: command, problem: "printed more than \(outputLimit) bytes"))
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            return .failure(
                KeyCommandError(command: command, problem: "failed with status \(process.terminationStatus)"))
        }
        let key = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !key.isEmpty else { return .failure(KeyCommandError(command: command, problem: "printed no key")) }
        guard !key.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            return .failure(KeyCommandError(command: command, problem: "printed more than one line"))
        }
        return .success(key)
    }
}

/// Why a `key_command` gave no key: one sentence naming the command (never its output).
public struct KeyCommandError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The command line.
    public var command: String
    /// What went wrong.
    public var problem: String

    /// An error: `command` did `problem` ("printed no key").
    public init(command: String, problem: String) {
        self.command = command
        self.problem = problem
    }

    /// The sentence.
    public var description: String {
        "the key command '\(TerminalText.oneLine(command))' \(problem); fix key_command in config.toml"
    }
}
