import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process for tests that drive a peer (a Python client, `openssl`), started with
/// `posix_spawn` directly. Foundation's `Process.run()` on Linux can crash while it scans
/// `/proc/self/fd` (an over-read of each directory entry; swift-corelibs-foundation PR #5472),
/// most often when a test run holds many sockets open, so the tests do not use it.
///
/// Standard output (and standard error, unless discarded) goes to one pipe the test reads; no
/// other descriptor of the test process is inherited. The child starts with an empty signal mask
/// and default signal actions, whichever thread spawned it.
public final class ChildProcess: Sendable {
    /// Why a child could not be started.
    public struct SpawnError: Error, CustomStringConvertible {
        /// What failed and the system's reason.
        public var description: String
    }

    /// The child's process id.
    public let pid: pid_t
    private let output: Int32

    private init(pid: pid_t, output: Int32) {
        self.pid = pid
        self.output = output
    }

    deinit {
        close(output)
    }

    /// Starts `executable` with `arguments`; `environment` replaces the parent's when given.
    /// Standard error joins standard output unless `discardStandardError`.
    public static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        discardStandardError: Bool = false
    ) throws -> ChildProcess {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))")
        }
        // Neither end leaks into another child spawned meanwhile; dup2 clears the flag on 1 and 2.
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        if discardStandardError {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        }
        // Only 0, 1 and 2 reach the child: an inherited socket of the test's servers or clients
        // would keep connections and listeners open behind their owners' backs. Closing them in
        // the child itself leaves no window for a descriptor another thread opens meanwhile.
        if let closeFrom = closeFromAction {
            _ = closeFrom(&actions, 3)
        } else {
            markEveryDescriptorCloseOnExec()
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environmentStrings: [UnsafeMutablePointer<CChar>?]?
        if let environment {
            environmentStrings = environment.map { key, value in strdup("\(key)=\(value)") } + [nil]
        }
        defer { for pointer in environmentStrings ?? [] { free(pointer) } }
        var pid = pid_t()
        let code: Int32
        if let environmentStrings {
            code = posix_spawn(&pid, executable, &actions, &attributes, argv, environmentStrings)
        } else {
            code = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        }
        close(pipeEnds[1])
        guard code == 0 else {
            close(pipeEnds[0])
            throw SpawnError(description: "posix_spawn \(executable): \(String(cString: strerror(code)))")
        }
        return ChildProcess(pid: pid, output: pipeEnds[0])
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run
    /// time because the Glibc module does not declare it; `nil` where the C library lacks it.
    private static let closeFromAction:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            #if canImport(Glibc)
                // A null handle is RTLD_DEFAULT: every object already loaded.
                let name = "posix_spawn_file_actions_addclosefrom_np"
                guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
                return unsafeBitCast(
                    symbol,
                    to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
            #else
                return nil
            #endif
        }()

    /// Sets close-on-exec on every open descriptor above 2, where the C library cannot close
    /// them in the child (a descriptor opened by another thread meanwhile can still leak).
    /// Reads each `/proc/self/fd` entry's name in place, never copying the whole `d_name` field
    /// (the over-read behind Foundation's crash).
    private static func markEveryDescriptorCloseOnExec() {
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        let own = dirfd(directory)
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { field in
                field.withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) }
            }
            guard let descriptor = Int32(name), descriptor > 2, descriptor != own else { continue }
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// Runs `executable` to its end: its exit status (-1 when it could not start, with the
    /// reason as output) and everything it wrote.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        discardStandardError: Bool = false
    ) -> (status: Int32, output: String) {
        do {
            let child = try spawn(
                executable, arguments, environment: environment, discardStandardError: discardStandardError)
            let output = child.readToEnd()
            return (child.wait(), String(decoding: output, as: UTF8.self))
        } catch {
            return (-1, "\(error)")
        }
    }

    /// Reads until the child closes its output.
    public func readToEnd() -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes.append(contentsOf: buffer[0..<count])
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return bytes
            }
        }
    }

    /// Reads one line (without its line feed), or `nil` when the output ended first.
    public func readLine() -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(output, &byte, 1)
            if count == 1 {
                if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
                line.append(byte)
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
            }
        }
    }

    /// Sends `signal` to the child.
    public func signal(_ number: Int32) {
        kill(pid, number)
    }

    /// Waits for the child to end; its exit status, or 128 + the signal that ended it.
    @discardableResult
    public func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
