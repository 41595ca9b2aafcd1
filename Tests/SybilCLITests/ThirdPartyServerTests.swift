#if canImport(Glibc)
    import Foundation
    import Glibc
    import SybilCore
    import SybilTesting
    import Testing

    /// `sybil ask` and `sybil profile` against OpenAI-compatible servers this project did not
    /// write, installed from PyPI by scripts/test (fakellm and mockllm, both mock servers
    /// built on FastAPI and uvicorn). Each test starts its server on a free loopback port and
    /// skips, saying why, when the package is not installed.
    @Suite("sybil against third-party OpenAI-compatible servers", .timeLimit(.minutes(2)))
    struct ThirdPartyServerTests {
        /// A started server, stopped by ``stop()``.
        struct Server {
            let child: ChildProcess
            let port: Int
            let directory: String

            func stop() {
                child.signal(SIGTERM)
                _ = child.wait()
                try? FileManager.default.removeItem(atPath: directory)
            }
        }

        /// A loopback port nothing listens on right now.
        private static func freePort() throws -> Int {
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

        /// Starts `module`'s command line with `arguments` (after writing `files` into its
        /// directory) and waits for uvicorn's "Application startup complete" line; `nil` when the package
        /// is missing.
        private static func start(
            _ module: String, _ command: [String], files: [String: String], port: Int
        ) throws -> Server? {
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
                    // The rest of its log is not read; a full pipe would block it, so drain it.
                    Thread.detachNewThread { _ = child.readToEnd() }
                    return Server(child: child, port: port, directory: directory)
                }
            }
            Issue.record("\(module) did not start: \(seen.suffix(5).joined(separator: " | "))")
            return nil
        }

        @Test func fakellmAnswersAskThroughAProfileWithV1AndNoKey() async throws {
            let port = try Self.freePort()
            let rules = """
                version: 1
                rules:
                  - name: kaltstart
                    when:
                      messages_contain: "Kaltstart"
                    respond:
                      content: "Ein Kaltstart ist der erste Start nach einer Pause."
                """
            guard
                let server = try Self.start(
                    "fakellm", ["serve", "--port", String(port), "--config", "fakellm.yaml"],
                    files: ["fakellm.yaml": rules], port: port)
            else {
                print("skipped: the Python package fakellm is not installed (scripts/test installs it)")
                return
            }
            defer { server.stop() }
            let home = server.directory + "/home"
            let environment = ["XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data"]
            #expect(
                await TestIO(environment: environment).run(
                    "profile", "add", "fake", "--base-url", "http://127.0.0.1:\(port)/v1", "--model", "mock-1") == 0)
            let ask = TestIO(environment: environment)
            #expect(await ask.run("ask", "Was ist ein Kaltstart?") == 0)
            #expect(ask.stdout == "Ein Kaltstart ist der erste Start nach einer Pause.\n", "stderr: \(ask.stderr)")
            let history = TestIO(environment: environment)
            #expect(await history.run("history", "list") == 0)
            #expect(history.stdout.contains("Was ist ein Kaltstart?"))
        }

        @Test func mockllmAnswersAskWithAModelAndTheApiURL() async throws {
            let port = try Self.freePort()
            let responses = """
                responses:
                  "unused": "unused"
                defaults:
                  unknown_response: "Antwort von mockllm, Wort für Wort."
                """
            guard
                let server = try Self.start(
                    "mockllm", ["start", "-r", "responses.yml", "-p", String(port), "-h", "127.0.0.1"],
                    files: ["responses.yml": responses], port: port)
            else {
                print("skipped: the Python package mockllm is not installed (scripts/test installs it)")
                return
            }
            defer { server.stop() }
            let home = server.directory + "/home"
            let ask = TestIO(environment: ["XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data"])
            #expect(
                await ask.run("ask", "--no-save", "--api-url", "http://127.0.0.1:\(port)", "--model", "gpt-4", "Hallo")
                    == 0)
            #expect(ask.stdout == "Antwort von mockllm, Wort für Wort.\n", "stderr: \(ask.stderr)")
        }
    }
#endif
