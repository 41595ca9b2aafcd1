import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// The records surface over HTTP: requests under the base path with the token, answers
/// checked against what was sent, a 401 renewed once, redirects refused, answers bounded.
@Suite("Records HTTP client", .timeLimit(.minutes(2)))
struct RecordsHTTPClientTests {
    /// Answers each request with the next scripted response and keeps the requests; a request
    /// beyond the script fails the call.
    final class ScriptedHTTP: HTTPClient {
        private let state: Locked<(answers: [(Int, [UInt8])], requests: [HTTPRequest])>

        init(_ answers: [(Int, String)]) {
            state = Locked((answers.map { ($0.0, Array($0.1.utf8)) }, []))
        }

        init(status: Int, bytes: [UInt8]) {
            state = Locked(([(status, bytes)], []))
        }

        var requests: [HTTPRequest] { state.withLock { $0.requests } }

        func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
            let answer = state.withLock { state -> (Int, [UInt8])? in
                state.requests.append(request)
                return state.answers.isEmpty ? nil : state.answers.removeFirst()
            }
            guard let (status, bytes) = answer else { throw URLError(.badServerResponse) }
            let body = AsyncThrowingStream<[UInt8], any Error> { continuation in
                continuation.yield(bytes)
                continuation.finish()
            }
            return HTTPStreamingResponse(head: HTTPResponseHead(status: status), body: body)
        }
    }

    struct Refresher: TokenRefresher {
        func refreshToken(expired: String?) async throws -> String { "fresh" }
    }

    static let records = [
        try! Record(id: "00000000-0000-4000-8000-000000000001", createdAt: 1, payload: .mood(score: 2, note: nil)),
        try! Record(id: "00000000-0000-4000-8000-000000000002", createdAt: 2, payload: .meditation(durationSeconds: 9)),
    ]

    static func answer(_ results: [RecordResult]) -> String {
        JSONWriter().string(from: RecordBatchAnswer(results: results).jsonValue)
    }

    static let created = answer(records.map { RecordResult(id: $0.id, status: .created) })

    private func client(_ http: ScriptedHTTP, refresher: (any TokenRefresher)? = nil) throws -> RecordsHTTPClient {
        let tokens = TokenProvider(
            current: TokenLocation(store: InMemorySecretStore(["a": "t0k3n"]), account: "a"), refresher: refresher)
        return RecordsHTTPClient(
            base: try AgentAPIBase(URL(string: "https://h/api/")!), http: http, tokens: tokens,
            clock: AnyClock(ManualClock()))
    }

    /// The error `call` throws, or `nil` (recorded as an issue) when it succeeds.
    private func failure<T>(
        sourceLocation: SourceLocation = #_sourceLocation, _ call: () async throws(RecordSyncError) -> T
    ) async -> RecordSyncError? {
        do {
            let value = try await call()
            Issue.record("succeeded with \(value)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    /// A head and the first byte of a body that never ends (what a server trickling its answer
    /// looks like to a client whose silence timeout never fires).
    struct EndlessHTTP: HTTPClient {
        func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
            let body = AsyncThrowingStream<[UInt8], any Error> { $0.yield([UInt8(ascii: "{")]) }
            return HTTPStreamingResponse(head: HTTPResponseHead(status: 200), body: body)
        }
    }

    @Test func aCallThatNeverEndsStopsAtItsDeadline() async throws {
        let clock = ManualClock()
        let tokens = TokenProvider(current: TokenLocation(store: InMemorySecretStore(["a": "t"]), account: "a"))
        let client = RecordsHTTPClient(
            base: try AgentAPIBase(URL(string: "https://h/api/")!), http: EndlessHTTP(), tokens: tokens,
            deadline: .seconds(45), clock: AnyClock(clock))
        let upload = Task { () async -> RecordSyncError? in
            do throws(RecordSyncError) {
                _ = try await client.upload(Self.records)
                return nil
            } catch {
                return error
            }
        }
        #expect(await clock.waitForSleepers())
        clock.advance(by: .seconds(44))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        let error = await upload.value
        #expect(error == RecordSyncError.timedOut(call: "POST records/batch", after: .seconds(45)))
        #expect(error?.description == "The server did not finish answering POST records/batch within 45 s.")
    }

    @Test func uploadPostsTheBatchUnderTheBasePathWithTheToken() async throws {
        let http = ScriptedHTTP([(200, Self.created)])
        let results = try await client(http).upload(Self.records)
        #expect(results.map(\.status) == [.created, .created])
        let request = try #require(http.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://h/api/records/batch")
        #expect(request.headers["Authorization"] == "Bearer t0k3n")
        #expect(request.headers["Content-Type"] == "application/json")
        let sent = try RecordBatch.decode(try JSONReader().parse(request.body ?? []), at: .root)
        #expect(sent == RecordBatch(records: Self.records))
    }

    @Test func anAnswerThatDoesNotNameTheRecordsSentIsRefused() async throws {
        let swapped = Self.answer(Self.records.reversed().map { RecordResult(id: $0.id, status: .created) })
        let short = Self.answer([RecordResult(id: Self.records[0].id, status: .created)])
        for body in [swapped, short, #"{"results": "x"}"#, "not json"] {
            let api = try client(ScriptedHTTP([(200, body)]))
            let error = await failure { () async throws(RecordSyncError) in try await api.upload(Self.records) }
            guard case .malformedAnswer? = error else { return #expect(Bool(false), "\(String(describing: error))") }
        }
    }

    @Test func a401IsRenewedOnceThenReported() async throws {
        let unauthorized = #"{"error": {"message": "A valid bearer token is required."}}"#
        let http = ScriptedHTTP([(401, unauthorized), (200, Self.created)])
        _ = try await client(http, refresher: Refresher()).upload(Self.records)
        #expect(http.requests.map { $0.headers["Authorization"] } == ["Bearer t0k3n", "Bearer fresh"])
        let twice = ScriptedHTTP([(401, unauthorized), (401, unauthorized)])
        let api = try client(twice, refresher: Refresher())
        let error = await failure { () async throws(RecordSyncError) in try await api.upload(Self.records) }
        #expect(error == .rejected(status: 401, error: APIErrorBody(message: "A valid bearer token is required.")))
        #expect(twice.requests.count == 2)
    }

    @Test func redirectsAndServerErrorsAreReported() async throws {
        let redirected = try client(ScriptedHTTP([(302, "")]))
        #expect(
            await failure { () async throws(RecordSyncError) in try await redirected.upload(Self.records) }
                == .redirectRefused(status: 302))
        let failing = try client(ScriptedHTTP([(503, "oops")]))
        #expect(
            await failure { () async throws(RecordSyncError) in try await failing.upload(Self.records) }
                == .rejected(status: 503, error: APIErrorBody(message: "HTTP 503 without an error body.")))
    }

    @Test func answersAreBoundedAtTheirLimit() async throws {
        // Padding white space keeps the JSON valid: only the size decides.
        let fits =
            Array(Self.created.utf8)
            + Array(repeating: 0x20, count: RecordsHTTPClient.maximumAnswerBytes - Self.created.utf8.count)
        #expect(try await client(ScriptedHTTP(status: 200, bytes: fits)).upload(Self.records).count == 2)
        let oversized = try client(ScriptedHTTP(status: 200, bytes: fits + [0x20]))
        let error = await failure { () async throws(RecordSyncError) in try await oversized.upload(Self.records) }
        guard case .malformedAnswer(let reason)? = error else { return #expect(Bool(false)) }
        #expect(reason.contains("larger than"))
    }

    @Test func pagesAskWithTheCursorAndLimitAndHoldAtMostTheLimit() async throws {
        let page = RecordPage(records: Self.records, nextCursor: RecordCursor(sequence: 9), hasMore: true)
        let http = ScriptedHTTP([(200, JSONWriter().string(from: page.jsonValue))])
        #expect(try await client(http).page(after: RecordCursor(sequence: 7), limit: 2) == page)
        #expect(http.requests.first?.url.absoluteString == "https://h/api/records?after=7&limit=2")
        let tooMany = ScriptedHTTP([(200, JSONWriter().string(from: page.jsonValue))])
        await #expect(throws: RecordSyncError.self) { try await client(tooMany).page(after: nil, limit: 1) }
    }
}
