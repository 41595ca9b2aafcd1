import Foundation
import SybilStore

/// Where the server writes what it must not tell a client: a failed request's cause with its
/// SQL, paths and internals. The command line's default is standard error; tests capture lines.
public struct ServerLog: Sendable {
    private let write: @Sendable (String) -> Void

    /// A log that hands each line (without its newline) to `write`.
    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// Lines to standard error, one per call.
    public static let standardError = ServerLog { line in
        // Never fatal: a server whose standard error was closed keeps serving.
        StandardStream.error.write(line + "\n")
    }

    /// Writes one line.
    public func callAsFunction(_ line: String) {
        write(line)
    }
}
