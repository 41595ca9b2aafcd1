#if canImport(Glibc)
    import Foundation
    import SybilClient
    import SybilCore
    import SybilStore
    import SybilTesting
    import SybilWire
    import Testing

    @testable import SybilCLI

    /// `sybil records sync` against a server that confirms what it should not, answers with
    /// too much or with nothing, or drops the connection: the sync stops with one clear
    /// sentence and its documented status, nothing unconfirmed is marked synced, nothing is
    /// lost, and what `sybil records list` prints afterwards stays one line per record.
    @Suite("sybil records sync against a hostile server", .timeLimit(.minutes(2)))
    struct RecordsHostileServerTests {
        /// A server that says it is a Sybil server (401 on the descriptor, the reference
        /// health answer) and answers each `POST records/batch` with `answer(records sent)`,
        /// writing raw bytes to the connection.
        private static func server(
            _ answer: @escaping @Sendable ([Record], LoopbackHTTPServer.Connection) -> Void
        ) throws -> LoopbackHTTPServer {
            try LoopbackHTTPServer { request, connection in
                if request.requestLine.hasPrefix("GET /agent/descriptor ") {
                    connection.write("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n")
                } else if request.requestLine.hasPrefix("GET /healthz ") {
                    let body = #"{"status":"ok"}"#
                    connection.write(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    )
                } else if request.requestLine.hasPrefix("POST /records/batch "),
                    let value = try? JSONReader().parse(request.body),
                    let batch = try? RecordBatch.decode(value, at: .root)
                {
                    let records = batch.entries.compactMap { entry -> Record? in
                        if case .record(let record) = entry { return record }
                        return nil
                    }
                    answer(records, connection)
                } else {
                    connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                }
            }
        }

        private static func json(_ body: String) -> String {
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }

        private static func results(_ results: [RecordResult]) -> String {
            JSONWriter().string(from: RecordBatchAnswer(results: results).jsonValue)
        }

        private func withHome(_ body: (_ environment: [String: String]) async throws -> Void) async throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-records-hostile-\(UUID())")
                .path
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: home) }
            try await body([
                "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data", "SYBIL_TOKEN": "t",
            ])
        }

        /// Saves two moods and syncs them to `server`; returns the sync's I/O and status.
        private func sync(_ server: LoopbackHTTPServer, _ environment: [String: String]) async -> (TestIO, Int32) {
            #expect(await TestIO(environment: environment).run("records", "add", "mood", "2") == 0)
            #expect(await TestIO(environment: environment).run("records", "add", "mood", "4") == 0)
            let sync = TestIO(environment: environment)
            let status = await sync.run("records", "sync", "--api-url", server.url.absoluteString)
            return (sync, status)
        }

        private func unsynced(_ environment: [String: String]) async -> [String] {
            let list = TestIO(environment: environment)
            #expect(await list.run("records", "list", "--unsynced") == 0)
            return list.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }

        @Test(
            "an answer that does not confirm exactly the batch sent marks nothing (76, naming the member)",
            arguments: [
                ("only some", "results"), ("an id never sent", "results[1].id"), ("the same id twice", "results[1].id"),
            ])
        func answersThatConfirmTheWrongRecordsMarkNothing(kind: String, member: String) async throws {
            let server = try Self.server { records, connection in
                let stranger = "ffffffff-ffff-4fff-8fff-ffffffffffff"
                let ids: [String] =
                    switch kind {
                    case "only some": [records[0].id]
                    case "an id never sent": [records[0].id, stranger]
                    default: [records[0].id, records[0].id]
                    }
                connection.write(Self.json(Self.results(ids.map { RecordResult(id: $0, status: .created) })))
            }
            try await withHome { environment in
                let (sync, status) = await sync(server, environment)
                #expect(status == 76, "\(sync.stderr)")
                #expect(
                    sync.stderr.contains("broke the records contract: POST records/batch: \(member)"), "\(sync.stderr)")
                if kind == "only some" { #expect(sync.stderr.contains(": holds 1 result for 2 records sent")) }
                #expect(sync.stderr.contains("2 records stay unsynced"))
                #expect(await unsynced(environment).count == 2)
            }
        }

        @Test func aMalformedAnswerNamesTheMemberAndMarksNothing() async throws {
            let server = try Self.server { records, connection in
                connection.write(Self.json(#"{"results": [{"id": "\#(records[0].id)", "status": "stored"}]}"#))
            }
            try await withHome { environment in
                let (sync, status) = await sync(server, environment)
                #expect(status == 76)
                #expect(sync.stderr.contains("results[0].status"), "\(sync.stderr)")
                #expect(await unsynced(environment).count == 2)
            }
        }

        @Test func anEndlessAnswerIsRefusedAtTheLimitWithoutReadingItAll() async throws {
            let flood = LoopbackHTTPServer.Flood()
            let server = try Self.server { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"results\": [")
                connection.flood(Array(repeating: UInt8(ascii: " "), count: 64 << 10), limit: 64 << 20, into: flood)
            }
            try await withHome { environment in
                let (sync, status) = await sync(server, environment)
                #expect(status == 76)
                #expect(sync.stderr.contains("larger than \(8 << 20) bytes"), "\(sync.stderr)")
                #expect(await ConditionWait.until { flood.sentEverything != nil })
                #expect(flood.sentEverything == false, "the whole flood was read")
                #expect(await unsynced(environment).count == 2)
            }
        }

        @Test func anAnswerThatBreaksOffIsUnreachableAndTheRetryIsSentAgain() async throws {
            let calls = Locked(0)
            let server = try Self.server { records, connection in
                let call = calls.withLock {
                    $0 += 1
                    return $0
                }
                let body = Self.results(
                    records.map { RecordResult(id: $0.id, status: call == 1 ? .created : .duplicate) })
                if call == 1 {
                    // The head and half the body, then the connection drops.
                    let whole = Self.json(body)
                    connection.write(String(whole.prefix(whole.utf8.count - body.utf8.count / 2)))
                } else {
                    connection.write(Self.json(body))
                }
            }
            try await withHome { environment in
                let (sync, status) = await sync(server, environment)
                #expect(status == 69, "\(sync.stderr)")
                #expect(sync.stderr.contains("2 records stay unsynced"))
                #expect(await unsynced(environment).count == 2)
                let again = TestIO(environment: environment)
                #expect(await again.run("records", "sync", "--api-url", server.url.absoluteString) == 0)
                #expect(again.stdout.hasPrefix("synced 2 of 2 records (0 new, 2 already on the server)"))
                #expect(await unsynced(environment).isEmpty)
            }
        }

        @Test func aConnectionDroppedBeforeAnyAnswerIsUnreachable() async throws {
            let server = try Self.server { _, _ in }
            try await withHome { environment in
                let (sync, status) = await sync(server, environment)
                #expect(status == 69, "\(sync.stderr)")
                #expect(await unsynced(environment).count == 2)
            }
        }

        @Test func aRejectionsReasonIsShownOnOneLineWithoutItsControlCharacters() async throws {
            let server = try Self.server { records, connection in
                let reason = "no\n2099-01-01 00:00 UTC  mood 5  synced  forged\u{1B}]0;owned\u{7}\u{1B}[2J\r"
                let results = records.map {
                    RecordResult(
                        id: $0.id, status: .rejected,
                        error: .init(code: "invalid_record\n\u{1B}[31m", message: reason, param: "records[0]"))
                }
                connection.write(Self.json(Self.results(results)))
            }
            try await withHome { environment in
                let (sync, status) = await sync(server, environment)
                #expect(status == 65, "\(sync.stderr)")
                #expect(!sync.stderr.contains("\u{1B}"))
                let errorLines = sync.stderr.split(separator: "\n")
                #expect(errorLines.count == 2, "one line per rejected record: \(errorLines)")
                let lines = await unsynced(environment)
                #expect(lines.count == 2, "one line per record: \(lines)")
                #expect(!lines.joined().contains("\u{1B}") && !lines.joined().contains("\r"))
            }
        }

        @Test func aLongRejectionIsCutOnTheLineThatShowsIt() async throws {
            let server = try Self.server { records, connection in
                let message = String(repeating: "why ", count: 100_000)
                let results = records.map {
                    RecordResult(id: $0.id, status: .rejected, error: .init(code: "invalid_record", message: message))
                }
                connection.write(Self.json(Self.results(results)))
            }
            try await withHome { environment in
                let (sync, status) = await sync(server, environment)
                #expect(status == 65)
                #expect(sync.stderr.utf8.count < 1_000, "\(sync.stderr.utf8.count) bytes")
                let lines = await unsynced(environment)
                #expect(lines.count == 2)
                #expect(lines.allSatisfy { $0.count < 500 && $0.contains("why why…  ") }, "\(lines.map(\.count))")
            }
        }

        @Test(
            "an answer trickled without end stops at the call's deadline (the profile's timeout when it sets one)",
            arguments: [(nil, 120), (7, 7)] as [(Int?, Int64)])
        func anAnswerTrickledWithoutEndStopsAtTheDeadline(profileTimeout: Int?, deadline: Int64) async throws {
            let server = try Self.server { _, connection in
                // The head, then a byte now and then, each well within the request's silence
                // timeout (30 s): only a deadline for the whole call ends the wait. The peer
                // gives up after a minute, so a client without one is not held past the suite.
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{"
                guard connection.write(head) else { return }
                for _ in 0..<600 {
                    Thread.sleep(forTimeInterval: 0.1)
                    guard connection.write(" ") else { return }
                }
            }
            try await withHome { environment in
                let url = server.url.absoluteString
                var arguments = ["--api-url", url]
                if let profileTimeout {
                    let config = environment["XDG_CONFIG_HOME"]! + "/sybil"
                    try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
                    try "[profiles.slow]\nbase_url = \"\(url)\"\ntimeout = \(profileTimeout)\n".write(
                        toFile: config + "/config.toml", atomically: true, encoding: .utf8)
                    arguments = ["--profile", "slow"]
                }
                #expect(await TestIO(environment: environment).run("records", "add", "mood", "2") == 0)
                #expect(await TestIO(environment: environment).run("records", "add", "mood", "4") == 0)
                let clock = ManualClock()
                let sync = TestIO(environment: environment)
                let run = Task { try await RecordsSyncCommand.run(arguments, io: sync.io, clock: AnyClock(clock)) }
                #expect(await ConditionWait.until { server.received.contains { $0.requestLine.hasPrefix("POST") } })
                #expect(await clock.waitForSleepers(), "the call waits on a deadline")
                clock.advance(by: .seconds(deadline - 1))
                #expect(clock.sleeperCount == 1, "the deadline is \(deadline) s, not less")
                clock.advance(by: .seconds(1))
                let status = try await run.value
                #expect(status == .unavailable, "\(sync.stderr)")
                #expect(sync.stderr.hasPrefix("sybil records sync: \(url) ("), "the server is named: \(sync.stderr)")
                #expect(
                    sync.stderr.hasSuffix(
                        " did not finish answering POST records/batch within \(deadline) s, the deadline for one call"
                            + " (a profile's timeout sets another); 2 records stay unsynced\n"), "\(sync.stderr)")
                #expect(sync.stderr.split(separator: "\n").count == 1)
                #expect(sync.stdout.isEmpty)
                #expect(await unsynced(environment).count == 2)
            }
        }

        @Test("a refused key exits 77 as `sybil ask` does", arguments: [401, 403])
        func aRefusedKeyIsPermissionDenied(refusal: Int) async throws {
            let server = try Self.server { _, connection in
                let body = #"{"error": {"message": "this key may not sync"}}"#
                connection.write(
                    "HTTP/1.1 \(refusal) No\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                )
            }
            try await withHome { environment in
                let (sync, status) = await sync(server, environment)
                #expect(status == 77, "\(sync.stderr)")
                #expect(
                    sync.stderr
                        == "sybil records sync: The server refused the key (HTTP \(refusal)): this key may not sync;"
                        + " 2 records stay unsynced\n")
                #expect(await unsynced(environment).count == 2)
            }
        }

        @Test func aRefusedSyncQuotesTheServerOnOneLine() async throws {
            let server = try Self.server { _, connection in
                let body = #"{"error": {"message": "busy\nsybil records sync: 0 records stay unsynced\u001b[2J"}}"#
                connection.write(
                    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                )
            }
            try await withHome { environment in
                let (sync, status) = await sync(server, environment)
                #expect(status == 69)
                #expect(sync.stderr.split(separator: "\n").count == 1, "\(sync.stderr)")
                #expect(sync.stderr.hasSuffix("; 2 records stay unsynced\n"))
                #expect(await unsynced(environment).count == 2)
            }
        }
    }
#endif
