import Foundation
import SybilCore
import SybilStore

/// The command line's boundary with the outside world: input bytes and two output streams.
/// Tests pass closures that capture output; ``live`` uses the process's standard streams.
public struct CommandIO: Sendable {
    /// Reads the input named by `path` (standard input when `nil`), handing chunks to `body`
    /// as they arrive. Throws ``InputError`` when the input cannot be read.
    public var readChunks: @Sendable (_ path: String?, _ body: ([UInt8]) -> Void) throws -> Void
    /// Writes to standard output.
    public var writeOutput: @Sendable (String) -> Void
    /// Writes to standard error, made safe for a terminal (``TerminalText``): every control
    /// character but line feed and tab, and every explicit bidi control, shown as U+FFFD.
    public var writeError: @Sendable (String) -> Void
    /// The environment variables the commands read (`SYBIL_TOKEN`, `SYBIL_API_URL`, …).
    public var environment: [String: String]
    /// Returns when the process is asked to stop (SIGINT or SIGTERM); long-running commands
    /// such as `sybil serve` wait on it.
    public var waitForTermination: @Sendable () async -> Void
    /// Whether standard output is a terminal (then output may carry terminal styling, unless
    /// `NO_COLOR` is set).
    public var outputIsTerminal: Bool
    /// Whether standard input is a terminal (with standard output one too, `sybil` opens the
    /// terminal app).
    public var inputIsTerminal: Bool
    /// The terminal's size in columns and rows, when standard output is one that reports it.
    public var terminalSize: @Sendable () -> (columns: Int, rows: Int)?
    /// Where generated secrets (a server's token) and ids come from: the system's source live,
    /// a seeded one in tests.
    public var random: any RandomSource
    /// Why writing to standard output failed, the first time it did (a full disk, a closed
    /// descriptor); `nil` while every write went through. The command line reports it at the
    /// end and exits 73 instead of 0.
    public var outputFailure: @Sendable () -> String?

    /// Creates an I/O boundary from closures.
    public init(
        readChunks: @escaping @Sendable (_ path: String?, _ body: ([UInt8]) -> Void) throws -> Void,
        writeOutput: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void,
        environment: [String: String] = [:],
        waitForTermination: @escaping @Sendable () async -> Void = {},
        outputIsTerminal: Bool = false,
        terminalSize: @escaping @Sendable () -> (columns: Int, rows: Int)? = { nil },
        random: any RandomSource = SystemRandomSource(),
        inputIsTerminal: Bool = false,
        outputFailure: @escaping @Sendable () -> String? = { nil }
    ) {
        self.outputFailure = outputFailure
        self.inputIsTerminal = inputIsTerminal
        self.readChunks = readChunks
        self.writeOutput = writeOutput
        // Error lines quote what peers said (a server's message, a rejection's reason): a
        // control character in one never reaches the terminal (see `TerminalText.safe`).
        self.writeError = { text in writeError(TerminalText.safe(text)) }
        self.environment = environment
        self.waitForTermination = waitForTermination
        self.outputIsTerminal = outputIsTerminal
        self.terminalSize = terminalSize
        self.random = random
    }

    /// An input that could not be read.
    public struct InputError: Error, Sendable, CustomStringConvertible {
        /// The file name, or `standard input`.
        public var source: String
        /// The system's reason.
        public var reason: String

        /// Creates an input error for `source` (already quoted when it is a file name).
        public init(source: String, reason: String) {
            self.source = source
            self.reason = reason
        }

        /// `cannot read 'FILE': REASON`.
        public var description: String { "cannot read \(source): \(reason)" }
    }

    /// Reads the whole input into memory.
    public func readAll(_ path: String?) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try readChunks(path) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// The process's standard input, output and error, and files by path.
    public static let live = CommandIO(
        readChunks: { path, body in
            let handle: FileHandle
            if let path {
                guard let file = FileHandle(forReadingAtPath: path) else {
                    let reason = FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
                    throw InputError(source: "'\(path)'", reason: reason)
                }
                handle = file
            } else {
                handle = FileHandle.standardInput
            }
            defer { if path != nil { try? handle.close() } }
            while true {
                let data: Data?
                do {
                    data = try handle.read(upToCount: 64 * 1024)
                } catch {
                    throw InputError(source: path.map { "'\($0)'" } ?? "standard input", reason: "\(error)")
                }
                guard let data, !data.isEmpty else { return }
                body([UInt8](data))
            }
        },
        writeOutput: { text in StandardStream.output.write(text) },
        writeError: { text in StandardStream.error.write(text) },
        environment: ProcessInfo.processInfo.environment,
        waitForTermination: { await TerminationSignal.shared.wait() },
        outputIsTerminal: isatty(STDOUT_FILENO) == 1,
        terminalSize: {
            var size = winsize()
            guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
                return nil
            }
            return (Int(size.ws_col), Int(size.ws_row))
        },
        inputIsTerminal: isatty(STDIN_FILENO) == 1,
        outputFailure: { StandardStream.output.firstFailure }
    )
}
