#if canImport(Glibc)
    import Foundation
    import Glibc
    import SybilTesting
    import Testing

    /// A third-party Python server (fakellm, mockllm: FastAPI on uvicorn, installed from PyPI by
    /// scripts/test) started on a free loopback port; `start` returns `nil` when the package is
    /// not installed, so a test can skip saying why.
    enum ThirdPartyPeer {
        struct Server {
            let child: ChildProcess
            let directory: String

            func stop() {
                child.signal(SIGTERM)
                _ = child.wait()
                try? FileManager.default.removeItem(atPath: directory)
            }
        }

        static func freePort() throws -> Int {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
                }
            }
            guard bound else { throw POSIXError(.EADDRINUSE) }
            return Int(UInt16(bigEndian: address.sin_port))
        }

        static func start(_ module: String, _ command: [String], files: [String: String]) throws -> Server? {
            guard let python = PythonPeer.python3(importing: module) else { return nil }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-\(module)-\(UUID())")
                .path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (name, text) in files {
                try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
            }
            let script =
                "import os, sys; os.chdir(sys.argv[1]); sys.argv = sys.argv[2:]; from \(module).cli import main; main()"
            let child = try ChildProcess.spawn(python, ["-c", script, directory, module] + command)
            var seen: [String] = []
            while let line = child.readLine() {
                seen.append(line)
                if line.contains("Application startup complete") {
                    Thread.detachNewThread { _ = child.readToEnd() }
                    return Server(child: child, directory: directory)
                }
            }
            Issue.record("\(module) did not start: \(seen.suffix(5).joined(separator: " | "))")
            return nil
        }

        /// fakellm on a free port answering by `rules` (its YAML); `nil`, with the skip said,
        /// when the package is not installed.
        /// fakellm with one rule: a chat whose messages contain "x" is answered `answer`; for
        /// tests that need a third-party server up, not its answers.
        static func fakellm(answering answer: String) throws -> (server: Server, port: Int)? {
            try fakellm(
                rules: """
                    version: 1
                    rules:
                      - name: any
                        when:
                          messages_contain: "x"
                        respond:
                          content: "\(answer)"
                    """)
        }

        static func fakellm(rules: String) throws -> (server: Server, port: Int)? {
            let port = try freePort()
            guard
                let server = try start(
                    "fakellm", ["serve", "--port", String(port), "--config", "fakellm.yaml"],
                    files: ["fakellm.yaml": rules])
            else {
                print("skipped: the Python package fakellm is not installed (scripts/test installs it)")
                return nil
            }
            return (server, port)
        }
    }
#endif
