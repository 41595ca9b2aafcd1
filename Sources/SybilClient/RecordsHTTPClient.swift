import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilWire

/// The records surface over HTTP: bodies are the Wire types, answers are read bounded and
/// decoded strictly, a batch's answer must name the records sent one by one, a `401` renews
/// the token once through the token chain, and a `3xx` is never followed. Each call has a
/// deadline for the whole of it (``defaultDeadline`` unless given another): the request's
/// timeout bounds each silence only, so a server sending a byte now and then would otherwise
/// hold a sync without end.
///
/// Give it an ``HTTPClient`` that does not follow redirects
/// (`DefaultHTTPClient.make(redirects: .deliver)`).
public struct RecordsHTTPClient: RecordsAPI {
    /// The largest answer read: 500 results, or a page of 500 records at their limits.
    public static let maximumAnswerBytes = 8 << 20
    /// The largest error body read.
    public static let maximumErrorBytes = 64 << 10
    /// How long one call may take in all, from the token to the last byte of the answer: a
    /// batch of 500 records is about 100 KiB each way, so two minutes is ample on a slow link.
    public static let defaultDeadline: Duration = .seconds(120)

    private let base: AgentAPIBase
    private let http: any HTTPClient
    private let tokens: TokenProvider
    private let timeout: Duration
    private let deadline: Duration
    private let clock: AnyClock

    /// A client of the records at `base` (e.g. `https://host/api`), sending through `http`
    /// with the token from `tokens`. `timeout` bounds the wait for the answer's head and each
    /// silence in it; `deadline`, measured on `clock`, bounds each call as a whole (after it
    /// the call throws ``RecordSyncError/timedOut(call:after:)``).
    public init(
        base: AgentAPIBase, http: any HTTPClient, tokens: TokenProvider, timeout: Duration = .seconds(30),
        deadline: Duration = RecordsHTTPClient.defaultDeadline, clock: AnyClock
    ) {
        precondition(deadline > .zero, "a deadline is after now")
        self.base = base
        self.http = http
        self.tokens = tokens
        self.timeout = timeout
        self.deadline = deadline
        self.clock = clock
    }

    /// `POST records/batch`; the answer must hold one result per record, each naming it.
    public func upload(_ records: [Record]) async throws(RecordSyncError) -> [RecordResult] {
        let body = JSONWriter().bytes(from: RecordBatch(records: records).jsonValue)
        let answer = try await json(
            method: "POST", route: ["records", "batch"], query: [], body: body, RecordBatchAnswer.decode)
        do {
            try answer.check(answering: records)
        } catch {
            throw .malformedAnswer("POST records/batch: \(error)")
        }
        return answer.results
    }

    /// `GET records`; a page holding more than `limit` records breaks the contract.
    public func page(after: RecordCursor?, limit: Int) async throws(RecordSyncError) -> RecordPage {
        precondition(RecordPage.limitRange.contains(limit), "limit must be within \(RecordPage.limitRange)")
        var query: [(String, String)] = []
        if let after { query.append(("after", after.description)) }
        query.append(("limit", String(limit)))
        let page = try await json(method: "GET", route: ["records"], query: query, body: nil, RecordPage.decode)
        guard page.records.count <= limit else {
            throw .malformedAnswer("GET records: records: \(page.records.count) records for a limit of \(limit)")
        }
        return page
    }

    // MARK: Transport

    private var requester: SybilAPIRequester<RecordSyncError> {
        SybilAPIRequester(
            base: base, http: http, tokens: tokens, timeout: timeout, maximumErrorBytes: Self.maximumErrorBytes,
            transport: { .transport($0) }, malformed: { .malformedAnswer($0) },
            refused: { status, body, _ in RecordSyncError.from(status: status, body: body) })
    }

    /// Sends the call and decodes its answer, or throws ``RecordSyncError/timedOut(call:after:)``
    /// when the whole of it took longer than the deadline (the request is cancelled, which
    /// closes its connection).
    private func json<T: Sendable>(
        method: String, route: [String], query: [(String, String)], body: [UInt8]?,
        _ decode: @escaping @Sendable (JSONValue, JSONPath) throws(JSONError) -> T
    ) async throws(RecordSyncError) -> T {
        let call = SybilAPIRequester<RecordSyncError>.Call(
            method: method, route: route, query: query, contentType: body == nil ? nil : "application/json", body: body)
        let requester = requester
        let (clock, deadline, name) = (clock, deadline, call.name)
        let outcome = await withTaskGroup(of: Result<T, RecordSyncError>.self) { group in
            group.addTask {
                do throws(RecordSyncError) {
                    return .success(
                        try await requester.json(call, maximumBytes: Self.maximumAnswerBytes, maximumDepth: 16, decode))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                do {
                    try await clock.sleep(for: deadline)
                    return .failure(.timedOut(call: name, after: deadline))
                } catch {
                    return .failure(.interrupted("\(name) was cancelled"))
                }
            }
            defer { group.cancelAll() }
            // Both children always return a value, so there is a first one.
            return await group.next() ?? .failure(.interrupted("\(name) was cancelled"))
        }
        return try outcome.get()
    }
}
