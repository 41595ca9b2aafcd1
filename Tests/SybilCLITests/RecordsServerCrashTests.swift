#if canImport(Glibc)
    import Foundation
    import Glibc
    import SybilCore
    import SybilTesting
    import SybilWire
    import Testing

    /// `sybil records sync` against the built `sybil serve` killed with SIGKILL: what it
    /// acknowledged survives its restart from disk, and a batch it stored but whose answer
    /// never arrived is sent again and stored once. Builds nothing: skipped, saying why, when
    /// the binary is missing.
    @Suite("sybil records sync and a server that crashes", .timeLimit(.minutes(2)))
    struct RecordsServerCrashTests {
        static let binary = KeysSecretServiceTests.binary
        static let token = "crash-token"

        /// A `sybil serve` child on a free port keeping its data in `directory`.
        final class Serve: Sendable {
            let child: ChildProcess
            let url: URL

            init(directory: String) throws {
                child = try ChildProcess.spawn(
                    RecordsServerCrashTests.binary,
                    ["serve", "--port", "0", "--data-dir", directory, "--token", RecordsServerCrashTests.token],
                    environment: ["PATH": "/usr/bin:/bin"])
                var seen: [String] = []
                while let line = child.readLine() {
                    seen.append(line)
                    if let range = line.range(of: "listening on ") {
                        url = URL(string: String(line[range.upperBound...]))!
                        let child = child
                        Thread.detachNewThread { _ = child.readToEnd() }
                        return
                    }
                }
                throw NotStarted(seen: seen)
            }

            /// SIGKILL: no shutdown, no checkpoint, nothing flushed that was not already.
            func crash() {
                child.signal(SIGKILL)
                child.wait()
            }

            var port: Int { url.port ?? 0 }
        }

        struct NotStarted: Error {
            var seen: [String]
        }

        /// The ids the server holds, read with a raw request.
        private func held(_ server: Serve) throws -> [String] {
            let client = try RawClient(port: server.port)
            defer { client.close() }
            client.send(
                "GET /records?limit=500 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Self.token)\r\nConnection: close\r\n\r\n"
            )
            let response = try #require(client.readResponse())
            #expect(response.status == 200)
            return try RecordPage.decode(try JSONReader().parse(response.body), at: .root).records.map(\.id)
        }

        /// Forwards every request to `target`; the answer to a `POST records/batch` is read
        /// whole from the server and then never delivered: the connection drops, as when the
        /// network fails right after the server committed.
        private func answerLosingProxy(to target: Serve) throws -> LoopbackHTTPServer {
            try LoopbackHTTPServer { request, connection in
                guard let upstream = try? RawClient(port: target.port) else { return }
                defer { upstream.close() }
                upstream.send(Array((request.head + "\r\n\r\n").utf8) + request.body)
                guard let answer = upstream.readResponse() else { return }
                if request.requestLine.hasPrefix("POST /records/batch ") { return }
                let type = answer.headers["content-type"].map { "Content-Type: \($0)\r\n" } ?? ""
                connection.write(
                    Array("HTTP/1.1 \(answer.status) X\r\n\(type)Content-Length: \(answer.body.count)\r\n\r\n".utf8)
                        + answer.body)
            }
        }

        @Test(
            "acknowledged records survive a SIGKILL, and an unacknowledged batch is stored once",
            .enabled(if: KeysSecretServiceTests.hasBinary, "needs .build/debug/sybil (swift build --product sybil)"))
        func acknowledgedRecordsSurviveACrashAndARetryIsStoredOnce() async throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-records-crash-\(UUID())")
                .path
            defer { try? FileManager.default.removeItem(atPath: home) }
            let serverData = home + "/server"
            let environment = [
                "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config", "SYBIL_TOKEN": Self.token,
            ]
            func run(_ arguments: String...) async -> (TestIO, Int32) {
                let test = TestIO(environment: environment)
                return (test, await test.run(arguments))
            }

            let first = try Serve(directory: serverData)
            #expect(await run("records", "add", "mood", "2").1 == 0)
            #expect(await run("records", "add", "meditation", "--seconds", "600").1 == 0)
            let (synced, status) = await run("records", "sync", "--api-url", first.url.absoluteString)
            #expect(status == 0, "\(synced.stderr)")
            #expect(synced.stdout.hasPrefix("synced 2 of 2 records (2 new"))

            // A third record reaches the server, whose answer is lost; then the server dies.
            #expect(await run("records", "add", "mood", "5", "--note", "after the walk").1 == 0)
            let proxy = try answerLosingProxy(to: first)
            let (lost, lostStatus) = await run("records", "sync", "--api-url", proxy.url.absoluteString)
            #expect(lostStatus == 69, "\(lost.stderr)")
            #expect(lost.stderr.hasSuffix("; 1 record stays unsynced\n"), "\(lost.stderr)")
            #expect(try held(first).count == 3, "the server committed the batch before answering")
            first.crash()

            let second = try Serve(directory: serverData)
            defer { second.crash() }
            let afterRestart = try held(second)
            #expect(afterRestart.count == 3, "acknowledged and committed records survive the crash")
            let (retry, retryStatus) = await run("records", "sync", "--api-url", second.url.absoluteString)
            #expect(retryStatus == 0, "\(retry.stderr)")
            #expect(retry.stdout == "synced 1 of 1 record (0 new, 1 already on the server), 0 rejected; 0 unsynced\n")
            #expect(try held(second) == afterRestart, "stored once, in the same place")
            let (list, listStatus) = await run("records", "list", "--unsynced")
            #expect(listStatus == 0 && list.stdout.isEmpty)
        }
    }
#endif
