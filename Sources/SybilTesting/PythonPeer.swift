import Foundation

/// Finds a `python3` for tests that run a peer written in Python (an independent
/// implementation to check against). Tests skip, saying why, when none fits.
public enum PythonPeer {
    private static let candidates = ["/root/.pyenv/shims/python3", "/usr/local/bin/python3", "/usr/bin/python3"]

    /// The first installed python3, or `nil`.
    public static let python3: String? = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The first installed python3 that can `import module`, or `nil`.
    public static func python3(importing module: String) -> String? {
        candidates.first { path in
            guard FileManager.default.isExecutableFile(atPath: path) else { return false }
            return ChildProcess.run(path, ["-c", "import \(module)"], discardStandardError: true).status == 0
        }
    }
}
